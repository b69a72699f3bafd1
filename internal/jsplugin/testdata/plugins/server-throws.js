export default { id: "server-throws", server() { throw new Error("cannot start: missing setting") } }
