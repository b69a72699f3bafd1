import { z } from "zod3"
import { zodPlugin } from "./shared"

export default zodPlugin("zod-3-25", z)
