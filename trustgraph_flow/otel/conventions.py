"""The attribute names we write and read: OpenTelemetry GenAI (semantic conventions, still
"Development") and OpenInference, side by side, and ours (``tg.*``)."""

from __future__ import annotations

# OpenInference
KIND = "openinference.span.kind"  # AGENT, CHAIN, TOOL, RETRIEVER, LLM, EMBEDDING, RERANKER, …
INPUT = "input.value"
OUTPUT = "output.value"
TOOL_NAME = "tool.name"
TOOL_PARAMETERS = "tool.parameters"
LLM_MODEL = "llm.model_name"
EMBEDDING_MODEL = "embedding.model_name"  # an EMBEDDING span's model (not llm.model_name)
LLM_PROMPT_TOKENS = "llm.token_count.prompt"
LLM_COMPLETION_TOKENS = "llm.token_count.completion"
LLM_TOTAL_TOKENS = "llm.token_count.total"
DOCS = "retrieval.documents"  # retrieval.documents.{i}.document.{id,content,score,metadata}
SESSION = "session.id"

# OpenTelemetry GenAI
OPERATION = "gen_ai.operation.name"  # invoke_agent, execute_tool, retrieval, chat, …
SYSTEM = "gen_ai.provider.name"
AGENT_NAME = "gen_ai.agent.name"
CONVERSATION = "gen_ai.conversation.id"
TOOL = "gen_ai.tool.name"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
RETRIEVAL_DOCUMENTS = "gen_ai.retrieval.documents"  # JSON text: [{id, score, …}]
DATA_SOURCE = "gen_ai.data_source.id"
PROMPT = "gen_ai.prompt"  # older GenAI names, still sent by some instrumentors
COMPLETION = "gen_ai.completion"

# Ours: the PROV entity a span stands for, and the trace it belongs to
PROV_URI = "tg.prov.uri"
PROV_TRACE = "tg.prov.trace"
PROV_DERIVED = "tg.prov.derived_from"

SERVICE_NAME = "explaingraph"
