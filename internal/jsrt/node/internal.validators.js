// The argument checks Node makes, with its errors (internal/errors).
"use strict";

const errors = require("internal/errors");

function validateString(v, name) {
  if (typeof v !== "string") throw errors.invalidArgType(name, "string", v);
}

function validateFunction(v, name) {
  if (typeof v !== "function") throw errors.invalidArgType(name, "function", v);
}

function validateObject(v, name, nullable) {
  if (v === null ? !nullable : typeof v !== "object" || Array.isArray(v)) throw errors.invalidArgType(name, "object", v);
}

function validateBoolean(v, name) {
  if (typeof v !== "boolean") throw errors.invalidArgType(name, "boolean", v);
}

function validateNumber(v, name, min, max) {
  if (typeof v !== "number") throw errors.invalidArgType(name, "number", v);
  if ((min !== undefined && v < min) || (max !== undefined && v > max) || ((min !== undefined || max !== undefined) && Number.isNaN(v))) {
    const range = min !== undefined && max !== undefined ? ">= " + min + " && <= " + max : min !== undefined ? ">= " + min : "<= " + max;
    throw errors.outOfRange(name, range, v);
  }
}

function validateInteger(v, name, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  if (typeof v !== "number") throw errors.invalidArgType(name, "number", v);
  if (!Number.isInteger(v)) throw errors.outOfRange(name, "an integer", v);
  if (v < min || v > max) throw errors.outOfRange(name, ">= " + min + " && <= " + max, v);
}

function validateArray(v, name) {
  if (!Array.isArray(v)) throw errors.invalidArgType(name, "an instance of Array", v);
}

function validateAbortSignal(signal, name) {
  if (signal !== undefined && (signal === null || typeof signal !== "object" || !("aborted" in signal))) {
    throw errors.invalidArgType(name, "an instance of AbortSignal", signal);
  }
}

module.exports = {
  validateString, validateFunction, validateObject, validateBoolean, validateNumber, validateInteger,
  validateArray, validateAbortSignal,
};
