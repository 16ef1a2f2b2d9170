"""The live receiver of `workbench collect`: OTLP/HTTP requests decoded into spans (decode), kept
durably before they are acknowledged (spool: SQLite), grouped into traces until they settle
(pending), handed to the import only as they become ready (collector), the import run in a process
of its own (worker), served over HTTP by uvicorn on llhttp (server), and the users' feedback kept
beside the imported traces (feedback)."""
