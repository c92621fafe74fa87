#!/usr/bin/env bash
# Builds the simulators' Docker images from their bundled dist/main.js and prints their sizes.
#
#   bash scripts/docker-images.sh                  # both: sims/cluster-sim:dev and sims/annotation-sim:dev
#   bash scripts/docker-images.sh cluster-sim      # one
#   bash scripts/docker-images.sh --bundle         # run each app's build first, through turbo (otherwise
#                                                  # only when dist/main.js is missing)
#   bash scripts/docker-images.sh --measure        # then time `docker run` to the first 200 from /_sim/health
#                                                  # (5 runs each, on 127.0.0.1 only) and `docker stop`
#
# Environment:
#   SIMS_BASE_IMAGE   the Dockerfiles' BASE_IMAGE (default node:20-bookworm-slim; CI: sims-node-base:20, made
#                     locally by scripts/docker-engine.sh because no registry is reachable there)
#   SIMS_IMAGE_TAG    tag of the images (default dev)
# The legacy builder is fine (and is what runs here: bookworm's docker.io has no buildx); the build context is
# the app folder, of which .dockerignore lets only the CLI through (dist/main.js, main.cjs and its code cache).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

BASE_IMAGE=${SIMS_BASE_IMAGE:-node:20-bookworm-slim}
TAG=${SIMS_IMAGE_TAG:-dev}
BUNDLE=0
MEASURE=0
APPS=()
for arg in "$@"; do
  case $arg in
  --bundle) BUNDLE=1 ;;
  --measure) MEASURE=1 ;;
  cluster-sim | annotation-sim) APPS+=("$arg") ;;
  -h | --help)
    sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "docker-images: unknown argument \"$arg\" (expected cluster-sim, annotation-sim, --bundle, --measure)" >&2
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
    # Through turbo: when nothing the bundle is made from changed since the last build (CI's build step, or
    # the other container suite's setup), turbo restores dist/ from its cache in a second instead of running
    # tsup again (~15 s an app, twice a suite, two suites in `npm test`: decision 0022).
    echo "docker-images: bundling $dir/src/main.ts (turbo run build --filter=@sims/$app)"
    pnpm exec turbo run build "--filter=@sims/$app" --output-logs=errors-only >/dev/null
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
  bundle=$(cat "apps/$app"/dist/main.js "apps/$app"/dist/main.cjs "apps/$app"/dist/main.cjs.cache | wc -c)
  awk -v i="$image" -v b="$bytes" -v j="$bundle" 'BEGIN { printf "  %-28s %6.1f MB  (dist/main.* %.2f MB)\n", i, b / 1e6, j / 1e6 }'
done

((MEASURE)) || exit 0

# Start to healthy: from `docker run` to the first 200 from /_sim/health, polled from here every 5 ms.
# Host networking when the engine has no bridge network (like CI's); a port published on 127.0.0.1 otherwise.
if docker network ls --format '{{.Name}}' | grep -qx bridge; then NET=publish; else NET=host; fi
echo "docker-images: start to healthy and stop ($NET networking, 5 runs each)"
for app in "${APPS[@]}"; do
  # shellcheck disable=SC2016 # the single-quoted text is JavaScript
  node --input-type=module -e '
    import { execFileSync } from "node:child_process";
    import { createServer } from "node:net";
    const [image, net] = process.argv.slice(1);
    const freePort = () => new Promise((ok) => { const s = createServer().listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => ok(port)); }); });
    const starts = [], stops = [];
    for (let i = 0; i < 5; i++) {
      const port = await freePort();
      const args = net === "host"
        ? ["--network", "host", "-e", "SIM_HOST=127.0.0.1", "-e", `SIM_PORT=${port}`]
        : ["-p", `127.0.0.1:${port}:8080`, "-e", "SIM_PORT=8080"];
      const t0 = performance.now();
      const id = execFileSync("docker", ["run", "-d", "--rm", "--label", "org.sims.measure=true", ...args, image]).toString().trim();
      try {
        for (;;) {
          if (performance.now() - t0 > 15000) throw new Error(`${image} not healthy within 15 s`);
          try { const r = await fetch(`http://127.0.0.1:${port}/_sim/health`); await r.arrayBuffer(); if (r.status === 200) break; } catch {}
          await new Promise((r) => setTimeout(r, 5));
        }
        starts.push(performance.now() - t0);
      } finally {
        const s0 = performance.now();
        execFileSync("docker", ["stop", id], { stdio: "ignore" });
        stops.push(performance.now() - s0);
      }
    }
    const fmt = (xs) => { const s = [...xs].sort((a, b) => a - b); return `median ${Math.round(s[2])} ms (min ${Math.round(s[0])}, max ${Math.round(s[4])})`; };
    console.log(`  ${image.padEnd(28)} start to healthy ${fmt(starts)}; stop ${fmt(stops)}`);
  ' "sims/$app:$TAG" "$NET"
done
