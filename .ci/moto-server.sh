# Sourced (not run): starts moto's serialised server from the venv .ci/moto-lane makes, on a free loopback port.
#   start_moto VENV TAG   sets moto_pid and moto_endpoint, stops the server on EXIT; returns 1 (saying why, prefixed
#                         with [TAG]) when the server exits or does not answer within 20 s.
# moto's own server app runs one request at a time: moto's TransactWriteItems is not isolated from concurrent
# requests (see .ci/moto_serialized_server.py); DynamoDB's requests are atomic, so every user serialises them.
moto_pid=''
moto_endpoint=''
moto_log=''

stop_moto() {
  if [ -n "$moto_pid" ] && kill -0 "$moto_pid" 2>/dev/null; then
    kill "$moto_pid" 2>/dev/null || true
    wait "$moto_pid" 2>/dev/null || true
  fi
  [ -n "$moto_log" ] && rm -f "$moto_log"
  return 0
}

start_moto() {
  local venv="$1" tag="$2" here port
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  moto_log=$(mktemp -t moto-server.XXXXXX.log)
  "$venv/bin/python" "$here/moto_serialized_server.py" 127.0.0.1 "$port" >"$moto_log" 2>&1 &
  moto_pid=$!
  trap stop_moto EXIT
  moto_endpoint="http://127.0.0.1:$port"
  local _
  for _ in $(seq 1 100); do
    if "$venv/bin/python" -c "import urllib.request; urllib.request.urlopen('$moto_endpoint/moto-api/', timeout=2)" 2>/dev/null; then
      return 0
    fi
    if ! kill -0 "$moto_pid" 2>/dev/null; then
      echo "[$tag] the moto server exited before answering:" >&2
      cat "$moto_log" >&2
      return 1
    fi
    sleep 0.2
  done
  echo "[$tag] the moto server did not answer on $moto_endpoint within 20 s" >&2
  cat "$moto_log" >&2
  return 1
}
