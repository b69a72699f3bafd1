// A server() that never resolves must not block start-up.
export default { id: "server-hangs", server: () => new Promise(() => {}) }
