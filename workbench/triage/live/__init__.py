"""The live receiver of `workbench collect`: OTLP/HTTP requests decoded into spans (decode), kept
durably before they are acknowledged (spool), grouped into traces until they settle (pending),
imported by a worker through the operation it is handed (collector), served over HTTP (server),
and the users' feedback kept beside the imported traces (feedback)."""
