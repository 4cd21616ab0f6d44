/** A test tracer: every span a program makes, in the order they started. */
import * as Tracer from "effect/Tracer"

export const recordingTracer = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { tracer, spans }
}
