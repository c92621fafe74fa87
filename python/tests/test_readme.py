"""The README's "Use it from Python" section quotes the three examples verbatim (as examples/test/readme.test.ts
checks the Node ones): a `<!-- python-example: <path> -->` marker, then the file in a ```python fence."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = [
    "python/examples/test_cvat_consumer.py",
    "python/examples/test_events_exporter.py",
    "python/examples/test_node_pool_upgrader.py",
]


def quoted_blocks():
    lines = (REPO / "README.md").read_text().split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^<!-- python-example: (\S+) -->$", line)
        if m:
            assert lines[i + 1] == "```python", f"README line {i + 2}: a ```python fence must follow the marker"
            end = lines.index("```", i + 2)
            yield m.group(1), "\n".join(lines[i + 2:end])


def test_the_readme_quotes_each_example_verbatim():
    blocks = dict(quoted_blocks())
    assert sorted(blocks) == EXAMPLES
    for path, text in blocks.items():
        # On failure: copy the file into the README's block (or the other way round).
        assert text == (REPO / path).read_text().rstrip("\n"), path
