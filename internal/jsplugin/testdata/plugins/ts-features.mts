// TypeScript with types, enums and generics runs without Node.
enum Level { Low = 1, High = 2 }
interface Box<T> { value: T }
const wrap = <T,>(value: T): Box<T> => ({ value })
export default {
  id: "ts-features",
  server: () => ({ "tool.execute.before": (input: { toolID: string }) => ({ ...input, level: Level.High, boxed: wrap(input.toolID).value }) }),
}
