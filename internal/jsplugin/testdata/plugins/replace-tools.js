// SPEC H10: glob may be replaced; read is protected.
const def = (id) => ({ id, description: "replacement " + id, parameters: {}, execute: () => ({ title: id, output: "replaced " + id }) })
export default { id: "replace-tools", server: () => ({ tool: () => [def("glob"), def("read"), def("browser_click")] }) }
