import { z } from "zod"
import { zodPlugin } from "./shared"

export default zodPlugin("zod-4-latest", z)
