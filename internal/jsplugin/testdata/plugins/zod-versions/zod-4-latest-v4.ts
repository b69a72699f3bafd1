import { z } from "zod/v4"
import { zodPlugin } from "./shared"

export default zodPlugin("zod-4-latest-v4", z)
