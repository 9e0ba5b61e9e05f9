# Sourced by the lanes that need moto's server (.ci/moto-lane, .ci/deploy-lane): `start_moto <venv> <label>` starts a
# fresh server on a free loopback port and waits until it answers; it sets moto_port and moto_pid, and stops the
# server on exit. moto's own server app, one request at a time: moto's TransactWriteItems is not isolated from
# concurrent requests (see .ci/moto_serialized_server.py); DynamoDB's requests are atomic, so the lanes serialise them.
start_moto() {
  local venv="$1" label="$2"
  moto_port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  moto_log=$(mktemp -t moto-server.XXXXXX.log)
  "$venv/bin/python" .ci/moto_serialized_server.py 127.0.0.1 "$moto_port" >"$moto_log" 2>&1 &
  moto_pid=$!
  trap stop_moto EXIT
  trap 'exit 130' INT TERM
  local probe="http://127.0.0.1:$moto_port/moto-api/"
  answers() { "$venv/bin/python" -c "import urllib.request; urllib.request.urlopen('$probe', timeout=2)" 2>/dev/null; }
  for _ in $(seq 1 100); do
    if answers; then return 0; fi
    if ! kill -0 "$moto_pid" 2>/dev/null; then
      echo "[$label] the moto server exited before answering:" >&2
      cat "$moto_log" >&2
      exit 1
    fi
    sleep 0.2
  done
  if ! answers; then
    echo "[$label] the moto server did not answer on $probe within 20 s" >&2
    cat "$moto_log" >&2
    exit 1
  fi
}

stop_moto() {
  if kill -0 "$moto_pid" 2>/dev/null; then
    kill "$moto_pid" 2>/dev/null || true
    wait "$moto_pid" 2>/dev/null || true
  fi
  rm -f "$moto_log"
}
