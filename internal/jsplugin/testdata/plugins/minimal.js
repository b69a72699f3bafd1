// SPEC P1: the only thing validated is {id: string, server: function}.
export default { id: "minimal", extra: "ignored", server() { return {} } }
