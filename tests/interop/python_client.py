#!/usr/bin/env python3
"""Interop check: a Python gRPC client, generated from revu/v1/review.proto
with grpcio-tools at run time, submits a diff to a running revu coordinator
and fetches the review.

Prints one JSON summary line on stdout and exits 0 when every check holds;
prints the failed check on stderr and exits 1 otherwise.

Requires: grpcio, grpcio-tools, grpcio-health-checking.
"""

import argparse
import importlib
import json
import sys
import tempfile
import uuid
from importlib import resources
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_tools import protoc

PROTO_FILE = "revu/v1/review.proto"
UNKNOWN_ID = "00000000-0000-7000-8000-000000000000"
MALFORMED_ID = "not a review id!"
RPC_TIMEOUT_S = 10
WATCH_TIMEOUT_S = 90


class InteropError(Exception):
    """A check that did not hold."""


def check(condition, message):
    if not condition:
        raise InteropError(message)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, help="coordinator host:port")
    parser.add_argument(
        "--proto-root", required=True, type=Path, help="directory holding revu/v1/review.proto"
    )
    parser.add_argument("--diff", required=True, type=Path, help="patch file to review")
    return parser.parse_args(argv)


def generate_stubs(proto_root, out_dir):
    """Runs protoc (from grpcio-tools) on the review proto into out_dir."""
    well_known = resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{well_known}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        PROTO_FILE,
    ]
    code = protoc.main(args)
    check(code == 0, f"grpc_tools.protoc failed with exit code {code} on {proto_root / PROTO_FILE}")


def import_stubs(out_dir):
    """Imports the generated modules from out_dir."""
    sys.path.insert(0, str(out_dir))
    pb2 = importlib.import_module("revu.v1.review_pb2")
    pb2_grpc = importlib.import_module("revu.v1.review_pb2_grpc")
    return pb2, pb2_grpc


def check_health(channel):
    stub = health_pb2_grpc.HealthStub(channel)
    reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=RPC_TIMEOUT_S)
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    serving = health_pb2.HealthCheckResponse.SERVING
    check(reply.status == serving, f'health of service "" is {status}, not SERVING')


def submit_twice(pb2, stub, diff):
    """Submits the diff, then again with the same key; returns the review id."""
    key = f"python-interop-{uuid.uuid4()}"
    request = pb2.SubmitReviewRequest(diff=diff, idempotency_key=key)
    first = stub.SubmitReview(request, timeout=RPC_TIMEOUT_S)
    check(first.review_id, "SubmitReview returned an empty review id")
    check(not first.existing, f"first SubmitReview with a fresh key {key!r} reported existing=True")
    again = stub.SubmitReview(request, timeout=RPC_TIMEOUT_S)
    check(
        again.review_id == first.review_id,
        f"resubmitting with key {key!r} gave review {again.review_id!r}, not {first.review_id!r}",
    )
    check(again.existing, "resubmitting with the same key reported existing=False")
    return first.review_id


def watch_events(pb2, stub, review_id):
    """Follows WatchReview until the server ends the stream; returns the kind names."""
    stream = stub.WatchReview(pb2.WatchReviewRequest(review_id=review_id), timeout=WATCH_TIMEOUT_S)
    kinds = [pb2.ReviewEvent.Kind.Name(event.kind) for event in stream]
    check(kinds, "WatchReview ended without any event")
    return kinds


def fetch_report(pb2, stub, review_id):
    """GetReview on a finished review; returns the parsed report."""
    reply = stub.GetReview(pb2.GetReviewRequest(review_id=review_id), timeout=RPC_TIMEOUT_S)
    state = pb2.ReviewState.Name(reply.state)
    check(reply.review_id == review_id, f"GetReview answered for {reply.review_id!r}, asked {review_id!r}")
    check(
        reply.state == pb2.REVIEW_STATE_FINISHED,
        f"review {review_id} is {state} after its event stream ended",
    )
    try:
        report = json.loads(reply.report_json)
    except json.JSONDecodeError as e:
        raise InteropError(f"report_json is not JSON: {e}") from e
    check(isinstance(report, dict), "report_json is not a JSON object")
    for field in ("verdict", "gate", "findings"):
        check(field in report, f"report_json has no {field!r}")
    check(isinstance(report["findings"], list), "report 'findings' is not a list")
    for field in ("verdict", "gate"):
        check(
            report[field] == getattr(reply, field),
            f"report {field} {report[field]!r} != GetReview {field} {getattr(reply, field)!r}",
        )
    return report


def expect_code(pb2, stub, review_id, code):
    """GetReview on review_id must fail with the status code `code`."""
    try:
        stub.GetReview(pb2.GetReviewRequest(review_id=review_id), timeout=RPC_TIMEOUT_S)
    except grpc.RpcError as e:
        check(
            e.code() == code,
            f"GetReview({review_id!r}) failed with {e.code().name}, expected {code.name}: {e.details()}",
        )
        return
    raise InteropError(f"GetReview({review_id!r}) succeeded, expected {code.name}")


def run(args):
    diff = args.diff.read_bytes()
    with tempfile.TemporaryDirectory(prefix="revu-interop-") as tmp:
        generate_stubs(args.proto_root, tmp)
        pb2, pb2_grpc = import_stubs(tmp)
        with grpc.insecure_channel(args.target) as channel:
            grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT_S)
            check_health(channel)
            stub = pb2_grpc.ReviewServiceStub(channel)
            review_id = submit_twice(pb2, stub, diff)
            kinds = watch_events(pb2, stub, review_id)
            report = fetch_report(pb2, stub, review_id)
            expect_code(pb2, stub, MALFORMED_ID, grpc.StatusCode.INVALID_ARGUMENT)
            expect_code(pb2, stub, UNKNOWN_ID, grpc.StatusCode.NOT_FOUND)
    return {
        "review_id": review_id,
        "verdict": report["verdict"],
        "gate": report["gate"],
        "findings": len(report["findings"]),
        "events": kinds,
    }


def main(argv):
    args = parse_args(argv)
    try:
        summary = run(args)
    except InteropError as e:
        print(f"python_client: FAILED: {e}", file=sys.stderr)
        return 1
    except grpc.RpcError as e:
        print(f"python_client: FAILED: RPC error {e.code().name}: {e.details()}", file=sys.stderr)
        return 1
    except grpc.FutureTimeoutError:
        print(f"python_client: FAILED: no connection to {args.target} in {RPC_TIMEOUT_S}s", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"python_client: FAILED: {e}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
