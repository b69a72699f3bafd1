// DOMException, the web's error with a name (InvalidCharacterError,
// QuotaExceededError, AbortError…) and its legacy numeric code, as Node
// throws it from atob, btoa and getRandomValues.
"use strict";

const legacy = [
  "IndexSizeError", "DOMStringSizeError", "HierarchyRequestError", "WrongDocumentError", "InvalidCharacterError",
  "NoDataAllowedError", "NoModificationAllowedError", "NotFoundError", "NotSupportedError", "InUseAttributeError",
  "InvalidStateError", "SyntaxError", "InvalidModificationError", "NamespaceError", "InvalidAccessError",
  "ValidationError", "TypeMismatchError", "SecurityError", "NetworkError", "AbortError", "URLMismatchError",
  "QuotaExceededError", "TimeoutError", "InvalidNodeTypeError", "DataCloneError",
];
const constants = [
  "INDEX_SIZE_ERR", "DOMSTRING_SIZE_ERR", "HIERARCHY_REQUEST_ERR", "WRONG_DOCUMENT_ERR", "INVALID_CHARACTER_ERR",
  "NO_DATA_ALLOWED_ERR", "NO_MODIFICATION_ALLOWED_ERR", "NOT_FOUND_ERR", "NOT_SUPPORTED_ERR", "INUSE_ATTRIBUTE_ERR",
  "INVALID_STATE_ERR", "SYNTAX_ERR", "INVALID_MODIFICATION_ERR", "NAMESPACE_ERR", "INVALID_ACCESS_ERR",
  "VALIDATION_ERR", "TYPE_MISMATCH_ERR", "SECURITY_ERR", "NETWORK_ERR", "ABORT_ERR", "URL_MISMATCH_ERR",
  "QUOTA_EXCEEDED_ERR", "TIMEOUT_ERR", "INVALID_NODE_TYPE_ERR", "DATA_CLONE_ERR",
];

class DOMException extends Error {
  #name;
  #message;
  constructor(message = "", options = "Error") {
    super();
    let name = options;
    if (options !== null && typeof options === "object") {
      name = "name" in options ? options.name : "Error";
      if ("cause" in options) Object.defineProperty(this, "cause", { value: options.cause, writable: true, configurable: true, enumerable: false });
    }
    this.#name = String(name);
    this.#message = String(message);
    if (typeof this.stack === "string") {
      const nl = this.stack.indexOf("\n");
      Object.defineProperty(this, "stack", { value: this.#name + ": " + this.#message + (nl < 0 ? "" : this.stack.slice(nl)), writable: true, configurable: true, enumerable: false });
    }
  }
  get name() { return this.#name; }
  get message() { return this.#message; }
  get code() { return legacy.indexOf(this.#name) + 1; }
}
for (const o of [DOMException, DOMException.prototype]) {
  constants.forEach((c, i) => Object.defineProperty(o, c, { value: i + 1, enumerable: true }));
}
Object.defineProperty(DOMException.prototype, Symbol.toStringTag, { value: "DOMException", configurable: true });

module.exports = { DOMException };
