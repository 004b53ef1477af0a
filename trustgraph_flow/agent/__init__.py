"""The ReAct agent: a loop of LLM steps and tool calls, each step traced as it happens."""
