// The memory budget (memory.go) for the allocations a module sizes
// itself: one past the budget is refused with a RangeError before it is
// made (refuse: the runtime's budgetError).
"use strict";

const { limit, refuse } = host;

// check throws refuse(what, bytes) when bytes pass the budget.
function check(what, bytes) {
  if (limit > 0 && bytes > limit) throw refuse(what, bytes);
}

module.exports = { limit, check, refuse };
