"""A small tokenizer with a Hermes-style tool chat template, built on the spot (nothing is
downloaded), for the verl and OpenRLHF tests: byte-level BPE, ChatML turns, ``<tool_call>`` tags as single
non-special tokens (as in Qwen's tokenizers), the tools rendered as full JSON schemas, and tool
results grouped into one user turn of ``<tool_response>`` blocks (as Qwen 2.5's template does)."""

from __future__ import annotations

import pathlib
from typing import Any

CHAT_TEMPLATE = """\
{%- if messages and messages[0]['role'] == 'system' -%}
{%- set system = messages[0]['content'] -%}{%- set rest = messages[1:] -%}
{%- else -%}{%- set system = '' -%}{%- set rest = messages -%}{%- endif -%}
{{- '<|im_start|>system\\n' + system -}}
{%- if tools -%}
{{- '\\n\\n# Tools\\n<tools>' -}}
{%- for tool in tools -%}{{- '\\n' + (tool | tojson) -}}{%- endfor -%}
{{- '\\n</tools>\\nCall a tool by writing <tool_call>{"name": ..., "arguments": {...}}</tool_call>.' -}}
{%- endif -%}
{{- '<|im_end|>\\n' -}}
{%- for message in rest -%}
{%- if message['role'] == 'tool' -%}
{%- if loop.first or rest[loop.index0 - 1]['role'] != 'tool' -%}{{- '<|im_start|>user' -}}{%- endif -%}
{{- '\\n<tool_response>\\n' + message['content'] + '\\n</tool_response>' -}}
{%- if loop.last or rest[loop.index0 + 1]['role'] != 'tool' -%}{{- '<|im_end|>\\n' -}}{%- endif -%}
{%- elif message['role'] == 'assistant' -%}
{{- '<|im_start|>assistant\\n' + (message['content'] or '') -}}
{%- for call in message['tool_calls'] or [] -%}
{{- '\\n<tool_call>\\n{"name": "' + call['function']['name'] + '", "arguments": ' + (call['function']['arguments'] | tojson) + '}\\n</tool_call>' -}}
{%- endfor -%}
{{- '<|im_end|>\\n' -}}
{%- else -%}
{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}
"""


def _corpus() -> list[str]:
    """The demo's tool schemas and instructions: a tokenizer trained on them keeps prompts short."""
    import json

    import gymnasium as gym

    from silo_gym.llm import to_openai_chat_tools

    env = gym.make("silo/demo")
    texts = []
    for task in ("TASK-001", "TASK-002", "TASK-003"):
        instruction, info = env.reset(seed=0, options={"task_id": task})
        texts.append(instruction)
    env.close()
    texts += [json.dumps(tool) for tool in to_openai_chat_tools(info["tools"])]
    return texts + ['<tool_response>\n{"output": {"items": [], "total": 0}}\n</tool_response> assistant user system']


def make_tokenizer() -> Any:
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=4000, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    backend.train_from_iterator(_corpus(), trainer=trainer)
    backend.add_tokens([AddedToken(t, special=False) for t in ("<tool_call>", "</tool_call>")])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                        additional_special_tokens=["<|im_start|>"])
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def write_model_dir(path: pathlib.Path) -> pathlib.Path:
    """A model directory verl's ``HFModelConfig`` loads: the tokenizer and a tiny Qwen2 config
    (no weights: the rollout tests never run the model)."""
    from transformers import Qwen2Config

    tokenizer = make_tokenizer()
    tokenizer.save_pretrained(path)
    Qwen2Config(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                num_attention_heads=2, num_key_value_heads=1, architectures=["Qwen2ForCausalLM"],
                eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id).save_pretrained(path)
    return path
