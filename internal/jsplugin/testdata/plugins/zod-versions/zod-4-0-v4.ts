import { z } from "zod-4-0/v4"
import { zodPlugin } from "./shared"

export default zodPlugin("zod-4-0-v4", z)
