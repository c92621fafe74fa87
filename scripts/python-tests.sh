#!/usr/bin/env bash
# The Python package (python/, issue 38) built and tested as a team outside this repository would use it:
#
#   bash scripts/python-tests.sh
#
# 1. builds the wheel with Debian's hatchling (python3 -m build --wheel --no-isolation);
# 2. installs it into a fresh virtual environment in a temporary directory outside the repository
#    (--system-site-packages, so Debian's pytest, requests and googleapiclient are seen; the wheel itself
#    with pip --no-index --no-deps), and checks that `sims` is imported from there, not from python/src;
# 3. runs, with that environment's pytest, against the built CLIs (apps/*/dist/main.js, `pnpm build`):
#    python/tests (the package's own tests) and python/examples copied to a temporary directory (the
#    "project outside the repository": the README's three examples);
# 4. when a Docker engine answers: the same two runs against the images (SIMS_DOCKER=1; the images are
#    built by scripts/docker-images.sh when missing).
# Every run writes a JUnit XML report to $SIMS_PYTHON_REPORTS (default python/.reports/): cli-package.xml,
# cli-examples.xml, docker-package.xml, docker-examples.xml. Exit 0 only when every run passed.
#
# Needs /usr/bin/python3 with Debian's python3-build, python3-hatchling, python3-venv, python3-pytest,
# python3-requests, python3-mypy (a test type-checks the installed package) and python3-googleapi (the node
# pool upgrader example drives Google's discovery client):
#   sudo apt-get install -y python3-build python3-hatchling python3-venv python3-pytest python3-requests python3-mypy python3-googleapi
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
PYTHON=${SIMS_PYTHON:-/usr/bin/python3}
REPORTS=${SIMS_PYTHON_REPORTS:-$ROOT/python/.reports}
# Debian's python modules each run needs; the package names to install them with.
MODULES='import build, hatchling, venv, ensurepip, pytest, requests, mypy, googleapiclient.discovery, httplib2'
DEBIAN_PACKAGES='python3-build python3-hatchling python3-venv python3-pytest python3-requests python3-mypy python3-googleapi'

log() { echo "python-tests: $*"; }

if ! "$PYTHON" -c "$MODULES" 2>/dev/null; then
  log "$PYTHON lacks some of: $MODULES"
  log "install them: sudo apt-get install -y $DEBIAN_PACKAGES"
  exit 1
fi
for app in cluster-sim annotation-sim; do
  [[ -f apps/$app/dist/main.js ]] || {
    log "apps/$app/dist/main.js is missing: run pnpm build first"
    exit 1
  }
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/sims-python.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
rm -rf "$REPORTS"
mkdir -p "$REPORTS"

# 1. The wheel. --skip-dependency-check: Debian's hatchling declares `editables`, which it needs only for
# editable installs and Debian does not package.
"$PYTHON" -m build --wheel --no-isolation --skip-dependency-check --outdir "$TMP/wheel" python >"$TMP/build.log" 2>&1 || {
  sed 's/^/  build| /' "$TMP/build.log"
  exit 1
}
WHEEL=$(ls "$TMP"/wheel/*.whl)
log "built $(basename "$WHEEL")"

# 2. A fresh environment outside the repository.
"$PYTHON" -m venv --system-site-packages "$TMP/venv"
"$TMP/venv/bin/pip" install --quiet --no-index --no-deps --disable-pip-version-check "$WHEEL"
where=$(cd "$TMP" && "$TMP/venv/bin/python" -c 'import sims; print(sims.__file__)')
[[ $where == "$TMP/venv/"* ]] || {
  log "sims is imported from $where, not from the environment"
  exit 1
}
log "installed into $TMP/venv ($("$TMP/venv/bin/python" -c 'import platform; print(platform.python_version())'))"

# The project outside the repository: the examples folder alone.
cp -r python/examples "$TMP/project"

export SIMS_CLUSTER_SIM_CLI=$ROOT/apps/cluster-sim/dist/main.js
export SIMS_ANNOTATION_SIM_CLI=$ROOT/apps/annotation-sim/dist/main.js
export SIMS_NODE=${SIMS_NODE:-$(command -v node)}
unset SIMS_CLUSTER_SIM_URL SIMS_ANNOTATION_SIM_URL SIMS_DOCKER

failed=0
# run NAME DIR [ENV=VALUE...] [-- PYTEST ARGS]: the environment's pytest in DIR, its JUnit XML report as NAME.xml.
run() {
  local name=$1 dir=$2 vars=() args=()
  shift 2
  while (($#)) && [[ $1 != -- ]]; do
    vars+=("$1")
    shift
  done
  (($#)) && shift && args=("$@")
  log "pytest $name (in $dir)"
  (cd "$dir" && env "${vars[@]}" "$TMP/venv/bin/python" -m pytest -q -p no:cacheprovider -o junit_family=xunit1 \
    --junitxml="$REPORTS/$name.xml" "${args[@]}" .) || failed=1
}

run cli-package "$ROOT/python/tests"
run cli-examples "$TMP/project"

if command -v docker >/dev/null 2>&1 && timeout 15 docker info >/dev/null 2>&1; then
  # The images' base: scripts/docker-engine.sh makes sims-node-base:<node major> where no registry is reachable.
  base=sims-node-base:$(node -p 'process.versions.node.split(".")[0]')
  if [[ -z ${SIMS_BASE_IMAGE:-} ]] && docker image inspect "$base" >/dev/null 2>&1; then export SIMS_BASE_IMAGE=$base; fi
  for app in cluster-sim annotation-sim; do
    if ! docker image inspect "sims/$app:dev" >/dev/null 2>&1; then
      log "building the missing image sims/$app:dev"
      bash scripts/docker-images.sh "$app" >"$TMP/image-$app.log" 2>&1 || {
        sed 's/^/  image| /' "$TMP/image-$app.log"
        failed=1
      }
    fi
  done
  # What does not depend on where the simulators come from ran once above: the type check, the README's
  # quotes and the CLI launcher.
  run docker-package "$ROOT/python/tests" SIMS_DOCKER=1 -- --ignore=test_types.py --ignore=test_readme.py \
    --ignore=test_launch.py
  run docker-examples "$TMP/project" SIMS_DOCKER=1
else
  log "no Docker engine answers: the runs against the images are not made"
fi
exit "$failed"
