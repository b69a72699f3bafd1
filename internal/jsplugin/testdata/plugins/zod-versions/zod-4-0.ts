import { z } from "zod-4-0"
import { zodPlugin } from "./shared"

export default zodPlugin("zod-4-0", z)
