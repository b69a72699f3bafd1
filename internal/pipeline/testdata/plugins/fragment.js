// SPEC H5: returning a fragment replaces the payload whole.
export default { id: "fragment", server: () => ({ "chat.params": () => ({ temperature: 0.5 }) }) }
