"""Production triage from traces: OpenTelemetry / OpenInference spans and Arize Phoenix exports.

  spans.py        Span: one span in a source-neutral shape (flat dotted attributes), flatten()
  otlp.py         OTLP JSON (the Collector's file exporter: one resourceSpans document per line, or one)
  phoenix.py      Phoenix span exports (JSONL / Parquet of the spans dataframe or the REST spans) and its URL
  conventions.py  a trace's spans → ProductionTrace (OpenInference flattened attributes, OTel GenAI JSON)
  readers.py      Langfuse's OTel SDK, the generic reading of any span, claimed depth, which convention
  docshapes.py    documents in the shapes frameworks write (title | text, {title, text}, wrappers)
  answer.py       the answer isolated from reasoning (DSPy markers, JSON fields, tool calls) or undecided
  program.py      the program's answer: the outermost chain's output before the LLM's raw text
  split.py        split traces joined by query id, else by query text and time
  resolve.py      which corpus document each traced document is (id, metadata, content)
  phrases.py      known texts found in a prompt by their opening words (whole-corpus index, cached)
  context.py      what the LLM read: the corpus documents its prompt quotes
  queries_in_prompt.py  the project query a prompt asks, for a trace that names none
  store.py        the imported traces' record (prompts, latencies) and which queries came from traces
  importer.py     `import-traces`: match queries, map documents, then import-run / import-answers / add-query
"""
