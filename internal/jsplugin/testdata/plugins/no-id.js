export default { server: () => ({}) }
