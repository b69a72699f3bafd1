// SPEC H13 H14 H15: what chat.params receives, and what it may change.
export default {
  id: "params-probe",
  server: (_input, { config }) => ({
    "chat.params": (params) => {
      const seen = {}
      for (const k of ["temperature", "topP", "topK", "maxOutputTokens", "options"]) {
        seen[k] = k in params ? (params[k] === undefined ? "undefined" : params[k]) : "missing"
      }
      const out = { ...params, options: { ...(params.options || {}), seen, ...(config && config.options) } }
      if (config && config.maxOutputTokens !== undefined) out.maxOutputTokens = config.maxOutputTokens
      return out
    },
  }),
}
