export default { id: 42, server: () => ({}) }
