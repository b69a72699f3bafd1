// The memory budget (memory.go) for the allocations a module sizes
// itself: one past the budget is refused with a RangeError before it is
// made, worded as the prelude words its own refusals.
"use strict";

const limit = host.limit;
const mib = (n) => Math.ceil(n / 1048576) + " MiB";

function refuse(what, bytes) {
  return new RangeError(what + " would allocate " + mib(bytes) + ", more than this plugin's memory budget of " + mib(limit));
}

// check throws refuse(what, bytes) when bytes pass the budget.
function check(what, bytes) {
  if (limit > 0 && bytes > limit) throw refuse(what, bytes);
}

module.exports = { limit, check, refuse };
