"""Production triage from traces: OpenTelemetry / OpenInference spans and Arize Phoenix exports.

  spans.py        Span: one span in a source-neutral shape (flat dotted attributes), flatten()
  otlp.py         OTLP JSON (the Collector's file exporter: one resourceSpans document per line, or one)
  phoenix.py      Phoenix span exports (JSONL / Parquet of the spans dataframe or the REST spans) and its URL
  conventions.py  a trace's spans → ProductionTrace (OpenInference flattened attributes, OTel GenAI JSON)
  store.py        the imported traces' record (prompts, latencies) and which queries came from traces
  importer.py     `import-traces`: match queries, map documents, then import-run / import-answers / add-query
"""
