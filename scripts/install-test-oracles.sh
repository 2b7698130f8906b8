#!/usr/bin/env bash
# Installs the npm packages the test suite uses as independent reference implementations (test
# oracles only, never used by the tool) into DIR/npm (default build/data/npm):
#   ajv: a full JSON Schema 2020-12 validator, cross-checking docs/report.schema.json and the
#        reports test_report_schema.py validates with its own small validator.
# Tests that need a package say so and skip that check when it is absent.
set -euo pipefail
dir="${1:-build/data}/npm"
mkdir -p "$dir"
if [[ -f "$dir/node_modules/ajv/package.json" ]] &&
   grep -q '"version": "8.20.0"' "$dir/node_modules/ajv/package.json"; then
  exit 0
fi
npm install --no-audit --no-fund --silent --prefix "$dir" ajv@8.20.0
