#!/usr/bin/python3
"""Validates one rail-map JSON file against docs/formats/rail-map.schema.json.

Usage: rail_map_schema_check.py SCHEMA FILE. Exit 0 when FILE fits SCHEMA and has at least one host
with a GPU served by a NIC (an empty map fitting the schema proves nothing).
"""
import json
import sys

import jsonschema


def main() -> int:
    schema_path, file_path = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    with open(file_path, encoding="utf-8") as f:
        doc = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    for error in errors:
        print(f"{file_path}: {'/'.join(str(p) for p in error.path)}: {error.message}")
    served = [g for h in doc.get("hosts", []) for g in h.get("gpus", []) if g.get("nics")]
    if not served:
        print(f"{file_path}: no GPU with a NIC; nothing was checked")
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
