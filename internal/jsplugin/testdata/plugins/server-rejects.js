export default { id: "server-rejects", async server() { await null; throw new Error("async failure") } }
