import { z } from "zod-4-1"
import { zodPlugin } from "./shared"

export default zodPlugin("zod-4-1", z)
