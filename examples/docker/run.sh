#!/usr/bin/env bash
# Both simulators as containers on the host's network, from the repository's root; prints the two container
# ids. The images: `bash scripts/docker-images.sh`. With a bridge network, `-p 8085:8085` works instead of
# `--network host` (then leave SIM_HOST alone: the images bind 0.0.0.0).
set -euo pipefail
docker run -d --rm --network host -e SIM_HOST=127.0.0.1 -e SIM_PORT="${CLUSTER_SIM_PORT:-8085}" \
  -e SIM_CLOCK=manual -v "$PWD/scenarios:/scenarios:ro" -e SIM_SCENARIO=/scenarios/busy-cluster.yaml \
  sims/cluster-sim:dev
docker run -d --rm --network host -e SIM_HOST=127.0.0.1 -e SIM_PORT="${ANNOTATION_SIM_PORT:-8086}" \
  sims/annotation-sim:dev
