/** Stands in for the SDK's ajv validator in the bundle (see rolldown.config.js): only elicitation uses it. */
export class AjvJsonSchemaValidator {
  getValidator() {
    throw new Error("libtmux-mcp does not validate elicited input")
  }
}
