#!/usr/bin/env bash
# Builds the simulators' Docker images from their bundled dist/main.js and prints their sizes.
#
#   bash scripts/docker-images.sh                  # both: sims/cluster-sim:dev and sims/annotation-sim:dev
#   bash scripts/docker-images.sh cluster-sim      # one
#   bash scripts/docker-images.sh --bundle         # run each app's tsup build first (otherwise only when
#                                                  # dist/main.js is missing)
#
# Environment:
#   SIMS_BASE_IMAGE   the Dockerfiles' BASE_IMAGE (default node:20-bookworm-slim; CI: sims-node-base:20, made
#                     locally by scripts/docker-engine.sh because no registry is reachable there)
#   SIMS_IMAGE_TAG    tag of the images (default dev)
# The legacy builder is fine (and is what runs here: bookworm's docker.io has no buildx); the build context is
# the app folder, of which .dockerignore lets only dist/main.js through.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BASE_IMAGE=${SIMS_BASE_IMAGE:-node:20-bookworm-slim}
TAG=${SIMS_IMAGE_TAG:-dev}
BUNDLE=0
APPS=()
for arg in "$@"; do
  case $arg in
  --bundle) BUNDLE=1 ;;
  cluster-sim | annotation-sim) APPS+=("$arg") ;;
  -h | --help)
    sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "docker-images: unknown argument \"$arg\" (expected cluster-sim, annotation-sim, --bundle)" >&2
    exit 2
    ;;
  esac
done
((${#APPS[@]} > 0)) || APPS=(cluster-sim annotation-sim)

command -v docker >/dev/null 2>&1 || {
  echo "docker-images: no docker CLI (bash scripts/docker-engine.sh start sets up an engine)" >&2
  exit 1
}

now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }

for app in "${APPS[@]}"; do
  dir=apps/$app
  image=sims/$app:$TAG
  if ((BUNDLE)) || [[ ! -f $dir/dist/main.js ]]; then
    echo "docker-images: bundling $dir/src/main.ts (pnpm --filter @sims/$app build)"
    pnpm --filter "@sims/$app" build >/dev/null
  fi
  t0=$(now_ms)
  # Its output only when it fails: the legacy builder's deprecation notice is noise here.
  if ! out=$(docker build --quiet --build-arg "BASE_IMAGE=$BASE_IMAGE" -t "$image" -f "$dir/Dockerfile" "$dir" 2>&1); then
    printf '%s\n' "$out" >&2
    echo "docker-images: building $image failed" >&2
    exit 1
  fi
  echo "docker-images: built $image on $BASE_IMAGE in $(($(now_ms) - t0)) ms"
done

echo "docker-images: sizes"
for app in "${APPS[@]}"; do
  image=sims/$app:$TAG
  bytes=$(docker image inspect --format '{{.Size}}' "$image")
  bundle=$(wc -c <"apps/$app/dist/main.js")
  awk -v i="$image" -v b="$bytes" -v j="$bundle" 'BEGIN { printf "  %-28s %6.1f MB  (dist/main.js %.2f MB)\n", i, b / 1e6, j / 1e6 }'
done
