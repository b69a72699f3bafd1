export default { id: "empty", server: () => ({}) }
