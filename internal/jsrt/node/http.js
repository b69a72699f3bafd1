// node:http: the client (request, get, ClientRequest, IncomingMessage,
// Agent and globalAgent, STATUS_CODES, METHODS, validateHeaderName and
// validateHeaderValue), node/internal.http.js over node_http.go, which
// say how it differs from Node's. A server is refused (createServer,
// Server): a plugin may not listen on ports of the server's host.
"use strict";

const client = require("internal/http");

const http = {
  Agent: client.Agent,
  ClientRequest: client.ClientRequest,
  IncomingMessage: client.IncomingMessage,
  OutgoingMessage: client.OutgoingMessage,
  METHODS: client.METHODS.slice(),
  STATUS_CODES: Object.assign({}, client.STATUS_CODES),
  Server: client.Server,
  ServerResponse: client.ServerResponse,
  maxHeaderSize: 16384,
  request: client.request,
  get: client.get,
  validateHeaderName: client.validateHeaderName,
  validateHeaderValue: client.validateHeaderValue,
  setMaxIdleHTTPParsers() {},
  createServer() { throw client.unavailable("http.createServer"); },
  _connectionListener() { throw client.unavailable("http._connectionListener"); },
};
// the agent requests use when they name none; a plugin may replace it
Object.defineProperty(http, "globalAgent", {
  get() { return client.globalAgent; },
  set(agent) { client.globalAgent = agent; },
  enumerable: true, configurable: true,
});

module.exports = http;
