// A missing npm package is a load error that names it.
import leftPad from "left-pad-that-is-not-installed"
export default { id: "missing-package", server: () => ({ "chat.params": (p: any) => ({ ...p, x: leftPad }) }) }
