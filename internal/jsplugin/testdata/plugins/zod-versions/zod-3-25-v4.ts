import { z } from "zod3/v4"
import { zodPlugin } from "./shared"

export default zodPlugin("zod-3-25-v4", z)
