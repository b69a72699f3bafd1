import { z } from "zod-3-23"
import { zodPlugin } from "./shared"

export default zodPlugin("zod-3-23", z)
