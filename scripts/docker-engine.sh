#!/usr/bin/env bash
# A local Docker engine for the container tests, and the local base image they build on.
#
#   bash scripts/docker-engine.sh start     # install docker.io if dockerd is missing, start dockerd, build the base image
#   bash scripts/docker-engine.sh stop      # remove testcontainers' leftovers; stop dockerd if this script started it
#   bash scripts/docker-engine.sh status    # is an engine answering, and did this script start it
#   bash scripts/docker-engine.sh image     # (re)build the base image on a running engine
#   bash scripts/docker-engine.sh clean     # remove containers labelled org.testcontainers=true
#
# Every subcommand is idempotent. An engine that was already answering is used as it is and never stopped.
# dockerd runs with --bridge=none --iptables=false --ip-masq=false: only the host and none networks exist,
# so all container traffic stays on loopback. No image can be pulled here, so the base image is made locally
# from this machine's node binary and the libraries ldd lists for it (plus dash as /bin/sh and a minimal
# /etc/passwd with root and node:1000), then `docker import`ed as $SIMS_BASE_IMAGE.
#
# Environment:
#   SIMS_BASE_IMAGE            image name to build (default sims-node-base:<node major>)
#   SIMS_DOCKER_STATE_DIR      where the pid and log paths of the dockerd started here are kept (/tmp/sims-docker-engine)
#   SIMS_DOCKER_WAIT_SECONDS   how long to wait for dockerd to answer (60)
set -euo pipefail

STATE_DIR=${SIMS_DOCKER_STATE_DIR:-/tmp/sims-docker-engine}
PIDFILE=$STATE_DIR/dockerd.pid
CHILDFILE=$STATE_DIR/children.pid
LOGPATHFILE=$STATE_DIR/dockerd.logpath
WAIT_SECONDS=${SIMS_DOCKER_WAIT_SECONDS:-60}
TC_LABEL=org.testcontainers=true

log() { echo "docker-engine: $*"; }

engine_up() { command -v docker >/dev/null 2>&1 && timeout 15 docker info >/dev/null 2>&1; }

# The pid of the dockerd this script started, if it is still alive.
our_pid() {
  [[ -f $PIDFILE ]] || return 1
  local pid
  pid=$(cat "$PIDFILE")
  if [[ $pid =~ ^[0-9]+$ ]] && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == dockerd ]]; then
    echo "$pid"
    return 0
  fi
  rm -f "$PIDFILE" "$CHILDFILE"
  return 1
}

node_major() { node -p 'process.versions.node.split(".")[0]'; }
base_image() { echo "${SIMS_BASE_IMAGE:-sims-node-base:$(node_major)}"; }

install_dockerd() {
  command -v dockerd >/dev/null 2>&1 && return 0
  [[ $(id -u) -eq 0 ]] || {
    log "dockerd is missing and installing it needs root (apt-get install docker.io)"
    return 1
  }
  log "dockerd is missing: installing Debian's docker.io"
  local t0=$SECONDS
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io >/dev/null
  log "docker.io installed in $((SECONDS - t0)) s ($(dockerd --version))"
}

start_dockerd() {
  mkdir -p "$STATE_DIR"
  local logfile pid deadline
  logfile=$(mktemp /tmp/sims-dockerd.XXXXXX.log)
  # setsid: its own session, so a Ctrl-C in the terminal that started it does not reach it; stdin/stdout/stderr
  # all point elsewhere, so whoever reads this script's output is not kept waiting by it.
  setsid dockerd --bridge=none --iptables=false --ip-masq=false </dev/null >"$logfile" 2>&1 &
  pid=$!
  echo "$pid" >"$PIDFILE"
  echo "$logfile" >"$LOGPATHFILE"
  log "started dockerd (pid $pid, log $logfile)"
  deadline=$((SECONDS + WAIT_SECONDS))
  until engine_up; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "dockerd exited before it answered; the end of its log:"
      tail -n 30 "$logfile" | sed 's/^/  dockerd| /'
      rm -f "$PIDFILE"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      log "dockerd did not answer within ${WAIT_SECONDS} s; the end of its log:"
      tail -n 30 "$logfile" | sed 's/^/  dockerd| /'
      stop_engine
      return 1
    fi
    sleep 0.2
  done
  # dockerd starts its own containerd; remember it so that stop can make sure it is gone too.
  pgrep -P "$pid" >"$CHILDFILE" || true
  log "engine answers ($(docker version --format 'server {{.Server.Version}}, API {{.Server.APIVersion}}' 2>/dev/null || echo '?'))"
}

build_image() {
  local image node_bin node_version root lib
  image=$(base_image)
  node_bin=$(readlink -f "$(command -v node)")
  node_version=$(node -v)
  if [[ "$(docker image inspect --format '{{index .Config.Labels "org.sims.node-version"}}' "$image" 2>/dev/null)" == "$node_version" ]]; then
    log "base image $image is up to date (node $node_version)"
    return 0
  fi
  root=$(mktemp -d /tmp/sims-base-image.XXXXXX)
  # Debian's merged /usr layout: /bin, /lib and /lib64 are links into /usr.
  mkdir -p "$root/usr/bin" "$root/usr/lib" "$root/usr/lib64" "$root/etc" "$root/tmp" "$root/root" "$root/home/node"
  ln -s usr/bin "$root/bin"
  ln -s usr/lib "$root/lib"
  ln -s usr/lib64 "$root/lib64"
  ln -s usr/bin "$root/sbin"
  cp "$node_bin" "$root/usr/bin/node"
  cp "$(readlink -f /bin/sh)" "$root/usr/bin/sh"
  for lib in $( (
    ldd "$node_bin"
    ldd /bin/sh
  ) | grep -o '/[^ ]*' | sort -u); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'node:x:1000:1000:node:/home/node:/bin/sh' \
    'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >"$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'node:x:1000:' 'nogroup:x:65534:' >"$root/etc/group"
  chmod 1777 "$root/tmp"
  chown 1000:1000 "$root/home/node"
  tar --numeric-owner -C "$root" -c . |
    docker import \
      -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
      -c "LABEL org.sims.node-version=$node_version" \
      -c 'CMD ["node"]' \
      -m "node $node_version from $node_bin and its libraries" - "$image" >/dev/null
  rm -rf "$root"
  log "built base image $image (node $node_version, $(docker image inspect --format '{{.Size}}' "$image") bytes)"
}

smoke_test() {
  local image out
  image=$(base_image)
  out=$(docker run --rm --network host "$image" node -e 'console.log(process.version)')
  log "smoke test: docker run --rm --network host $image node -> $out"
}

clean_containers() {
  engine_up || return 0
  local ids
  ids=$(docker ps -aq --filter "label=$TC_LABEL")
  if [[ -n $ids ]]; then
    log "removing $(wc -w <<<"$ids") container(s) labelled $TC_LABEL"
    # shellcheck disable=SC2086
    docker rm -f $ids >/dev/null
  fi
}

stop_engine() {
  local pid child deadline
  if ! pid=$(our_pid); then
    if engine_up; then
      clean_containers
      log "the running engine was not started by this script: left running"
    else
      log "no engine started by this script is running"
    fi
    return 0
  fi
  clean_containers || true
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + 20))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    log "dockerd (pid $pid) ignored SIGTERM for 20 s: killing it"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  # dockerd stops its own containerd on a clean exit; after a kill, end it here.
  if [[ -f $CHILDFILE ]]; then
    while read -r child; do
      [[ -n $child ]] && kill -0 "$child" 2>/dev/null && [[ "$(cat "/proc/$child/comm" 2>/dev/null)" == containerd* ]] &&
        kill -TERM "$child" 2>/dev/null || true
    done <"$CHILDFILE"
  fi
  rm -f "$PIDFILE" "$CHILDFILE"
  log "stopped dockerd (pid $pid; its log: $(cat "$LOGPATHFILE" 2>/dev/null || echo '?'))"
}

start_engine() {
  if engine_up; then
    if our_pid >/dev/null; then log "engine already running (started by this script)"; else log "engine already running"; fi
  elif pid=$(our_pid); then
    log "dockerd (pid $pid) started by this script is not answering: restarting it"
    stop_engine
    install_dockerd
    start_dockerd
  else
    install_dockerd
    if pgrep -x dockerd >/dev/null; then
      log "a dockerd not started by this script is running but does not answer; stop it first"
      return 1
    fi
    start_dockerd
  fi
  build_image
  smoke_test
}

status() {
  local pid
  if engine_up; then
    if pid=$(our_pid); then log "running (dockerd pid $pid, started by this script)"; else log "running (not started by this script)"; fi
    docker image inspect --format "base image {{index .RepoTags 0}}: node {{index .Config.Labels \"org.sims.node-version\"}}" \
      "$(base_image)" 2>/dev/null || log "base image $(base_image) not built"
  else
    log "not running"
    return 1
  fi
}

case "${1:-start}" in
start) start_engine ;;
stop) stop_engine ;;
status) status ;;
image) build_image && smoke_test ;;
clean) clean_containers ;;
*)
  echo "usage: bash scripts/docker-engine.sh [start|stop|status|image|clean]" >&2
  exit 2
  ;;
esac
