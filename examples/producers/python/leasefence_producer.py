"""Reference leasefence producer in Python (standard library + boto3), following docs/PRODUCERS.md.

It does what the TypeScript ``sendJob`` does for an inline payload:

1. validates the identity (tenantId, operationId) and the job type with the published rules;
2. computes the payload's canonical JSON (RFC 8785) and its SHA-256, the ``payloadHash``;
3. stores the canonical body in the payloads table under the identity's key (``tenant#bucket``,
   ``payload#<operationId>``) with one conditional PutItem: a new body is ``stored``, the same body again is a
   ``replay``, a different body for the same identity is a conflict (nothing written, nothing sent);
4. sends the job message (the envelope of schema/envelope.schema.json) to the jobs queue, with the tenant's
   ``MessageGroupId`` (SQS fair queues keep one tenant's backlog from delaying the others).

Endpoints, region and credentials come from boto3's usual configuration (``AWS_ENDPOINT_URL_DYNAMODB``,
``AWS_ENDPOINT_URL_SQS``, ``AWS_DEFAULT_REGION``, ...). Command line::

    python3 leasefence_producer.py check-vectors schema/test-vectors.json
    printf '%s' '{"amount":70.0}' | python3 leasefence_producer.py canonical     # prints {"amount":70}
    python3 leasefence_producer.py send --queue-url URL --payloads-table T --tenant-id acme \\
        --operation-id refund-r_815 --job-type refund-settlement --payload '{"amount":70.0}' [--jobs-table J]
    python3 leasefence_producer.py send --carry-body --queue-url URL --tenant-id acme \\
        --operation-id refund-r_815 --job-type refund-settlement --payload '{"amount":70.0}'

``--carry-body`` is the one-message form: the body travels in the message and the worker stores it (it sits in
SQS, and in the DLQ for their retention, where erasure cannot reach it; a deployment may refuse it).

``send`` prints one JSON object (the answer) and exits 0; a conflict exits 3, bad input exits 2.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import time
from typing import Any

ENVELOPE_VERSION = 1
TENANT_BUCKETS = 16
DEFAULT_RETENTION_DAYS = 30
# States from which no worker acts again without an operator: a replay of such a job is not signalled again.
FINISHED_STATES = {"succeeded", "failed_terminal", "unknown", "quarantined", "cancelled"}
MAX_PAYLOAD_BYTES = 256 * 1024

TENANT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
OPERATION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/=+@-]{0,255}")
JOB_TYPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class InvalidInput(ValueError):
    """Input the contract refuses; ``field`` names the bad part. Nothing was written or sent."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class PayloadConflict(Exception):
    """Same identity, different payload hash: nothing was written or sent. ``stored_hash`` is the stored one."""

    def __init__(self, stored_hash: str | None) -> None:
        super().__init__("this identity already has a different payload stored; nothing was changed")
        self.stored_hash = stored_hash


# --- canonical JSON (RFC 8785) -------------------------------------------------------------------------------


def canonical_json(value: Any) -> str:
    """RFC 8785 canonical JSON of a value parsed by ``json.loads`` (dict, list, str, int, float, bool, None)."""
    text = _canonical(value)
    if len(text.encode("utf-8")) > MAX_PAYLOAD_BYTES:
        raise InvalidInput("payload", f"exceeds {MAX_PAYLOAD_BYTES} bytes in canonical form")
    return text


def payload_hash(value: Any) -> str:
    """SHA-256 (lowercase hex) of the UTF-8 of the canonical JSON."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def _canonical(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (int, float)):
        # JSON numbers are IEEE 754 doubles (I-JSON): a Python int is read as the double it rounds to.
        try:
            return _number(float(value))
        except OverflowError:
            raise InvalidInput("payload", "number out of the double range") from None
    if isinstance(value, list):
        return "[" + ",".join(_canonical(element) for element in value) + "]"
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise InvalidInput("payload", "object keys must be strings")
        # RFC 8785 orders keys by UTF-16 code units; comparing UTF-16BE bytes is exactly that order.
        keys = sorted(value, key=lambda key: _checked(key).encode("utf-16-be"))
        return "{" + ",".join(f"{_string(key)}:{_canonical(value[key])}" for key in keys) + "}"
    raise InvalidInput("payload", f"{type(value).__name__} is not a JSON value")


def _checked(text: str) -> str:
    """The text, if it is well-formed Unicode: a lone surrogate has no UTF-8 form (I-JSON forbids it)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("payload", "strings must be well-formed Unicode (lone surrogate)") from None
    return text


def _string(text: str) -> str:
    # ensure_ascii=False escapes exactly what ECMAScript's JSON.stringify escapes: " \ and U+0000-U+001F
    # (\b \f \n \r \t by name, the others as lowercase \u00xx); everything else, non-ASCII included, stays literal.
    return json.dumps(_checked(text), ensure_ascii=False)


def _number(number: float) -> str:
    """ECMAScript Number::toString of a double (RFC 8785 section 3.2.2.3)."""
    if math.isnan(number) or math.isinf(number):
        raise InvalidInput("payload", "numbers must be finite")
    if number == 0:
        return "0"  # -0 too
    if number < 0:
        return "-" + _number(-number)
    # repr gives the shortest digits that round-trip, as ECMAScript does; only the layout differs.
    mantissa, _, exponent_text = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    all_digits = whole + fraction
    leading_zeros = len(all_digits) - len(all_digits.lstrip("0"))
    digits = all_digits.lstrip("0").rstrip("0")
    # number = 0.<digits> * 10^n
    n = len(whole) + int(exponent_text or 0) - leading_zeros
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    exponent = n - 1
    sign = "+" if exponent >= 0 else "-"
    return (digits[0] + ("." + digits[1:] if k > 1 else "")) + f"e{sign}{abs(exponent)}"


# --- identity and keys ---------------------------------------------------------------------------------------


def check_identity(tenant_id: str, operation_id: str) -> None:
    """Raises InvalidInput naming the field when an id breaks the rules (docs/PRODUCERS.md, "Identity")."""
    if not isinstance(tenant_id, str) or not TENANT_ID.fullmatch(tenant_id):
        raise InvalidInput("tenantId", "must be 1-64 chars of [A-Za-z0-9._-] starting with a letter or digit")
    if not isinstance(operation_id, str) or not OPERATION_ID.fullmatch(operation_id):
        raise InvalidInput("operationId", "must be 1-256 chars of [A-Za-z0-9._:/=+@-] starting with a letter or digit")


def tenant_bucket(tenant_id: str, operation_id: str) -> int:
    """The identity's bucket: SHA-256 of "leasefence:partition\\0<tenant>\\0<operation>", first 8 hex digits, mod 16."""
    digest = hashlib.sha256(f"leasefence:partition\0{tenant_id}\0{operation_id}".encode("utf-8")).hexdigest()
    return int(digest[:8], 16) % TENANT_BUCKETS


def partition_key(tenant_id: str, operation_id: str) -> str:
    """The partition key of the identity's work row and payload: ``tenant#bucket``."""
    return f"{tenant_id}#{tenant_bucket(tenant_id, operation_id)}"


def message_group(tenant_id: str) -> str:
    """The SQS MessageGroupId of every message of the tenant (fair queues): "t" + 16 hex digits of a SHA-256."""
    return "t" + hashlib.sha256(f"leasefence:group\0{tenant_id}".encode("utf-8")).hexdigest()[:16]


def payload_key(tenant_id: str, operation_id: str) -> dict[str, dict[str, str]]:
    """The payloads table key of the identity's body (DynamoDB attribute values)."""
    return {"pk": {"S": partition_key(tenant_id, operation_id)}, "sk": {"S": f"payload#{operation_id}"}}


def work_item_key(tenant_id: str, operation_id: str) -> dict[str, dict[str, str]]:
    """The jobs table key of the identity's work row (DynamoDB attribute values)."""
    return {"pk": {"S": partition_key(tenant_id, operation_id)}, "sk": {"S": f"op#{operation_id}"}}


# --- sending -------------------------------------------------------------------------------------------------


def envelope(tenant_id: str, operation_id: str, job_type: str, hash_hex: str, job_version: int | None,
             carried: str | None = None) -> str:
    """The SQS body of a job (schema/envelope.schema.json): its body in the payloads table (``{"inline": true}``),
    or, given ``carried`` (the canonical JSON), the body in the message itself (``{"body": ...}``)."""
    body: dict[str, Any] = {
        "v": ENVELOPE_VERSION,
        "kind": "job",
        "tenantId": tenant_id,
        "operationId": operation_id,
        "jobType": job_type,
        "payloadHash": hash_hex,
    }
    if job_version is not None:
        body["jobVersion"] = job_version
    if carried is None:
        return json.dumps({**body, "payload": {"inline": True}}, separators=(",", ":"))
    # The canonical text itself goes in, so the worker parses exactly the value that was hashed.
    return json.dumps(body, separators=(",", ":"))[:-1] + ',"payload":{"body":' + carried + "}}"


def store_payload(dynamodb: Any, table: str, tenant_id: str, operation_id: str, payload: Any,
                  retention_days: int = DEFAULT_RETENTION_DAYS) -> tuple[str, str]:
    """Writes the canonical body once: ("stored" | "replay" | "erased", payloadHash); PayloadConflict otherwise."""
    canonical = canonical_json(payload)
    hash_hex = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    expires = int(time.time()) + retention_days * 86400
    try:
        written = dynamodb.put_item(
            TableName=table,
            Item={
                **payload_key(tenant_id, operation_id),
                "body": {"S": canonical},
                "payloadHash": {"S": hash_hex},
                "expiresAtEpochSeconds": {"N": str(expires)},
            },
            # New, or the same hash and not erased (a replay rewrites the same body). A different hash fails, and so
            # does an erased body: a failed condition alone cannot tell replay from conflict, the stored item can.
            ConditionExpression="attribute_not_exists(pk) OR (payloadHash = :hash AND attribute_not_exists(erasedAt))",
            ExpressionAttributeValues={":hash": {"S": hash_hex}},
            ReturnValues="ALL_OLD",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except dynamodb.exceptions.ConditionalCheckFailedException as failed:
        stored = failed.response.get("Item")
        if stored is None:  # an engine without ReturnValuesOnConditionCheckFailure: read the item back
            stored = dynamodb.get_item(TableName=table, Key=payload_key(tenant_id, operation_id),
                                       ConsistentRead=True).get("Item", {})
        stored_hash = stored.get("payloadHash", {}).get("S")
        if stored_hash == hash_hex and "erasedAt" in stored:
            return "erased", hash_hex
        raise PayloadConflict(stored_hash) from None
    return ("replay" if written.get("Attributes") else "stored"), hash_hex


def read_job(dynamodb: Any, jobs_table: str, tenant_id: str, operation_id: str) -> dict[str, Any] | None:
    """The stored work row's state, outcome and payload hash (None while no worker has created it)."""
    item = dynamodb.get_item(TableName=jobs_table, Key=work_item_key(tenant_id, operation_id), ConsistentRead=True,
                             ProjectionExpression="#s, outcomeCode, errorCode, payloadHash",
                             ExpressionAttributeNames={"#s": "state"}).get("Item")
    if item is None:
        return None
    return {name: next(iter(value.values())) for name, value in item.items()}


def _check_job(tenant_id: str, operation_id: str, job_type: str, job_version: int | None) -> None:
    check_identity(tenant_id, operation_id)
    if not isinstance(job_type, str) or not JOB_TYPE.fullmatch(job_type):
        raise InvalidInput("jobType", "must be 1-64 chars of [A-Za-z0-9._-]")
    if job_version is not None and not (isinstance(job_version, int) and 1 <= job_version <= 1_000_000):
        raise InvalidInput("jobVersion", "must be an integer from 1 to 1000000")


def send_carried(*, sqs: Any, queue_url: str, tenant_id: str, operation_id: str, job_type: str, payload: Any,
                 job_version: int | None = None) -> dict[str, Any]:
    """Sends one message carrying the body (no table write): the worker verifies it and stores it. The answer is
    "sent"; replay and conflict are the worker's to tell (``leasefence show`` / ``ls --state quarantined``)."""
    _check_job(tenant_id, operation_id, job_type, job_version)
    canonical = canonical_json(payload)
    hash_hex = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    sent = sqs.send_message(QueueUrl=queue_url, MessageGroupId=message_group(tenant_id),
                            MessageBody=envelope(tenant_id, operation_id, job_type, hash_hex, job_version, canonical))
    return {"answer": "sent", "payloadHash": hash_hex, "messageId": sent["MessageId"]}


def send_job(*, sqs: Any, dynamodb: Any, queue_url: str, payloads_table: str, tenant_id: str, operation_id: str,
             job_type: str, payload: Any, job_version: int | None = None, jobs_table: str | None = None,
             retention_days: int = DEFAULT_RETENTION_DAYS) -> dict[str, Any]:
    """Stores the body, then sends the message. The answer is "new" or "replay"; with ``jobs_table`` a replay
    carries the stored row (None while no worker created it) and a finished job is not signalled again."""
    _check_job(tenant_id, operation_id, job_type, job_version)
    stored, hash_hex = store_payload(dynamodb, payloads_table, tenant_id, operation_id, payload, retention_days)
    answer: dict[str, Any] = {"answer": "new" if stored == "stored" else "replay", "payloadStored": stored,
                              "payloadHash": hash_hex}
    if jobs_table is not None and stored != "stored":
        row = read_job(dynamodb, jobs_table, tenant_id, operation_id)
        answer["stored"] = None if row is None else {k: v for k, v in row.items() if k != "payloadHash"}
        if row is not None and row["state"] in FINISHED_STATES:
            return {**answer, "messageId": ""}
    sent = sqs.send_message(QueueUrl=queue_url, MessageGroupId=message_group(tenant_id),
                            MessageBody=envelope(tenant_id, operation_id, job_type, hash_hex, job_version))
    return {**answer, "messageId": sent["MessageId"]}


# --- command line --------------------------------------------------------------------------------------------


def check_vectors(path: str) -> int:
    """Checks this implementation against the shared vectors; prints each failure and a count line."""
    with open(path, encoding="utf-8") as file:
        vectors = json.load(file)
    failures: list[str] = []
    passed = 0

    def expect(ok: bool, what: str) -> None:
        nonlocal passed
        if ok:
            passed += 1
        else:
            failures.append(what)

    for vector in vectors["payloads"]:
        try:
            value = json.loads(vector["json"])
            expect(canonical_json(value) == vector["canonical"], f"canonical of {vector['name']}")
            expect(payload_hash(value) == vector["payloadHash"], f"hash of {vector['name']}")
        except InvalidInput as error:
            failures.append(f"{vector['name']}: refused ({error})")
    for vector in vectors["rejectedPayloads"]:
        try:
            canonical_json(json.loads(vector["json"]))
            failures.append(f"{vector['name']}: accepted, must be refused")
        except InvalidInput:
            passed += 1
    for vector in vectors["identities"]:
        tenant, operation = vector["tenantId"], vector["operationId"]
        check_identity(tenant, operation)
        expect(tenant_bucket(tenant, operation) == vector["bucket"], f"bucket of {tenant}/{operation}")
        expect(payload_key(tenant, operation) == {"pk": {"S": vector["pk"]}, "sk": {"S": vector["payloadSk"]}},
               f"payload key of {tenant}/{operation}")
        expect(work_item_key(tenant, operation) == {"pk": {"S": vector["pk"]}, "sk": {"S": vector["workItemSk"]}},
               f"work item key of {tenant}/{operation}")
        expect(message_group(tenant) == vector["messageGroupId"], f"message group of {tenant}")
    for vector in vectors["rejectedIdentities"]:
        try:
            check_identity(vector["tenantId"], vector["operationId"])
            failures.append(f"identity with a bad {vector['field']} accepted")
        except InvalidInput as error:
            expect(error.field == vector["field"], f"identity refused for {error.field}, not {vector['field']}")
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"vectors: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="leasefence reference producer (docs/PRODUCERS.md)")
    commands = parser.add_subparsers(dest="command", required=True)
    vectors = commands.add_parser("check-vectors", help="check this implementation against the shared vectors")
    vectors.add_argument("path")
    commands.add_parser("canonical", help="print the canonical JSON of the JSON text on standard input")
    send = commands.add_parser("send", help="store the payload and send its job message (or carry it: --carry-body)")
    send.add_argument("--queue-url", required=True)
    send.add_argument("--payloads-table", help="where the body is stored (required without --carry-body)")
    send.add_argument("--carry-body", action="store_true",
                      help="send the body in the message, no table write (the deployment must accept inline payloads)")
    send.add_argument("--jobs-table", help="on a replay, answer with the stored row (needs GetItem on the jobs table)")
    send.add_argument("--tenant-id", required=True)
    send.add_argument("--operation-id", required=True)
    send.add_argument("--job-type", required=True)
    send.add_argument("--job-version", type=int)
    send.add_argument("--payload", required=True, help="the payload as JSON text")
    args = parser.parse_args(argv)
    if args.command == "check-vectors":
        return check_vectors(args.path)
    if args.command == "canonical":
        try:
            sys.stdout.buffer.write(canonical_json(json.loads(sys.stdin.buffer.read().decode("utf-8"))).encode("utf-8"))
        except (InvalidInput, ValueError) as error:
            print(f"not canonicalisable: {error}", file=sys.stderr)
            return 2
        return 0

    import boto3  # only sending needs it

    try:
        payload = json.loads(args.payload)
    except json.JSONDecodeError:
        print(json.dumps({"error": "invalid_input", "field": "payload", "message": "not JSON"}))
        return 2
    if args.carry_body:
        try:
            answer = send_carried(sqs=boto3.client("sqs"), queue_url=args.queue_url, tenant_id=args.tenant_id,
                                  operation_id=args.operation_id, job_type=args.job_type,
                                  job_version=args.job_version, payload=payload)
        except InvalidInput as error:
            print(json.dumps({"error": "invalid_input", "field": error.field, "message": str(error)}))
            return 2
        print(json.dumps(answer))
        return 0
    if args.payloads_table is None:
        print(json.dumps({"error": "invalid_input", "field": "payloadsTable", "message": "--payloads-table is required"}))
        return 2
    try:
        answer = send_job(sqs=boto3.client("sqs"), dynamodb=boto3.client("dynamodb"), queue_url=args.queue_url,
                          payloads_table=args.payloads_table, jobs_table=args.jobs_table, tenant_id=args.tenant_id,
                          operation_id=args.operation_id, job_type=args.job_type, job_version=args.job_version,
                          payload=payload)
    except InvalidInput as error:
        print(json.dumps({"error": "invalid_input", "field": error.field, "message": str(error)}))
        return 2
    except PayloadConflict as conflict:
        print(json.dumps({"error": "payload_conflict", "storedPayloadHash": conflict.stored_hash}))
        return 3
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
