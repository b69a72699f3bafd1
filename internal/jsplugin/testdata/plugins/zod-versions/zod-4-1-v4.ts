import { z } from "zod-4-1/v4"
import { zodPlugin } from "./shared"

export default zodPlugin("zod-4-1-v4", z)
