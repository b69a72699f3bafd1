// Imported only with import(), and awaiting at its top level.
export const value = await Promise.resolve("lazy loaded")
