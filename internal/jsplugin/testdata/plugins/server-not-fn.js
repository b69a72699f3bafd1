export default { id: "server-not-fn", server: "nope" }
