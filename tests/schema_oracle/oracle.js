#!/usr/bin/env node
// The independent side of d2k's schema cross-check: ajv's JSON Schema 2020-12 validator.
//
//   node oracle.js CASE.json...
//
// Each case file holds {"schema": ...} or {"schema_file": "path from the repository root"}, and
// "instances": [...]. Prints one JSON object: {"CASE.json": [true, false, ...], ...}, the verdict
// for each instance in order, or {"CASE.json": {"error": "..."}} when ajv rejects the schema.
"use strict";

const fs = require("fs");
const path = require("path");
const Ajv2020 = require("ajv/dist/2020");

const repositoryRoot = path.resolve(__dirname, "..", "..");

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

function verdicts(caseFile) {
  const testCase = readJson(caseFile);
  const schema = testCase.schema_file === undefined
    ? testCase.schema
    : readJson(path.join(repositoryRoot, testCase.schema_file));
  // A fresh instance per case, so schemas with the same $id do not collide. strictSchema (on by
  // default) makes ajv refuse unknown keywords, as d2k does; the type and tuple lints only log.
  const ajv = new Ajv2020({ allErrors: true, strictTypes: false, strictTuples: false });
  try {
    const validate = ajv.compile(schema);
    return testCase.instances.map((instance) => validate(instance));
  } catch (error) {
    return { error: String(error.message) };
  }
}

const results = {};
for (const caseFile of process.argv.slice(2)) results[caseFile] = verdicts(caseFile);
process.stdout.write(JSON.stringify(results) + "\n");
