import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const repo = fileURLToPath(new URL('../..', import.meta.url));

/** The root README's text. */
export function readme(): string {
  return readFileSync(join(repo, 'README.md'), 'utf8');
}

/** A fenced block right after an HTML comment marker `<!-- kind: value -->`. */
export interface MarkedBlock {
  /** The marker's value: a file path for `example`, a simulator name for `fault`. */
  value: string;
  /** The fence's info string (`ts`, `json`, …). */
  lang: string;
  /** The block's text, without the fences, ending without a newline. */
  text: string;
  /** The bold title in the lines just above the marker, if any. */
  title?: string;
  /** 1-based line of the marker in the README. */
  line: number;
}

/**
 * Every `<!-- kind: value -->` marker of the README with the fenced block that follows it. A marker
 * that is not followed at once by a fence is reported as a block with lang `MISSING`.
 *
 * @example markedBlocks(readme(), 'example') // [{ value: 'examples/test/in-process.test.ts', lang: 'ts', … }]
 */
export function markedBlocks(text: string, kind: string): MarkedBlock[] {
  const lines = text.split('\n');
  const blocks: MarkedBlock[] = [];
  const marker = new RegExp(`^<!-- ${kind}: (\\S+) -->$`);
  lines.forEach((line, i) => {
    const value = marker.exec(line)?.[1];
    if (value === undefined) return;
    const title =
      /\*\*(.+?)\*\*/.exec(lines[i - 1] ?? '')?.[1] ?? /\*\*(.+?)\*\*/.exec(lines[i - 2] ?? '')?.[1];
    const fence = /^```(\w*)$/.exec(lines[i + 1] ?? '');
    const end = lines.findIndex((l, j) => j > i + 1 && l === '```');
    if (!fence || end < 0) {
      blocks.push({ value, lang: 'MISSING', text: '', title, line: i + 1 });
      return;
    }
    blocks.push({
      value,
      lang: fence[1] ?? '',
      text: lines.slice(i + 2, end).join('\n'),
      title,
      line: i + 1,
    });
  });
  return blocks;
}
