#!/usr/bin/python3
"""Validates every line of JSONL files against a JSON Schema (python3-jsonschema).

usage: validate_jsonl.py SCHEMA FILE... [--expect NCCL/KIND=VERSION ...] [--min-records N] [--document]

--document: each FILE is one JSON document (a rules file), not JSON Lines.

--expect checks bindings.jsonl content: the record for that NCCL version and plugin kind is bound
at that ABI version (e.g. 2.30/tuner=6).
"""
import argparse
import json
import sys

import jsonschema


def load_records(path):
    records = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                raise ValueError(f"{path}:{number}: empty line")
            try:
                records.append((number, json.loads(line)))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{number}: not JSON: {e}") from e
    return records


def check_expectations(path, records, expectations):
    problems = []
    for item in expectations:
        key, version = item.split("=")
        nccl, kind = key.split("/")
        found = [r for _, r in records if r.get("nccl") == nccl and r.get("kind") == kind]
        if len(found) != 1:
            problems.append(f"{path}: {len(found)} records for NCCL {nccl} {kind}, expected 1")
        elif not found[0]["bound"] or found[0]["version"] != int(version):
            problems.append(f"{path}: NCCL {nccl} {kind} bound {found[0]['symbol'] or 'nothing'}, expected v{version}")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("schema")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--min-records", type=int, default=1)
    parser.add_argument("--document", action="store_true")
    args = parser.parse_args()

    with open(args.schema, encoding="utf-8") as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)

    problems = []
    for path in args.files:
        if args.document:
            with open(path, encoding="utf-8") as f:
                records = [(1, json.load(f))]
        else:
            records = load_records(path)
        if len(records) < args.min_records:
            problems.append(f"{path}: {len(records)} records, expected at least {args.min_records}")
        for number, record in records:
            for error in validator.iter_errors(record):
                problems.append(f"{path}:{number}: {error.json_path}: {error.message}")
        problems += check_expectations(path, records, args.expect)
        print(f"{path}: {len(records)} records checked against {args.schema}")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError) as e:
        print("FAIL:", e)
        sys.exit(1)
