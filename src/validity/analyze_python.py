"""Static validity analysis of a Python candidate (docs/protocol.md, "Implementation validity").

Run by d2k as `python3 -I -S analyze_python.py REQUEST_JSON`; prints {"findings": [...]}.
The candidate's source is only parsed with `ast`: nothing it contains is imported or executed,
and this process loads no third-party package. The entry file and every module it imports from
its own folder (the workspace) are analyzed.

A name is resolved to the dotted name of what it stands for: `import torch as t` makes `t.mm`
mean torch.mm, `from torch import matmul as mm` and `mm2 = mm` make both torch.matmul, and
`getattr(torch, "mat" + "mul")` is folded to torch.matmul. Resolution ignores scopes and control
flow on purpose: a name that could stand for a forbidden object counts as one.
"""

import ast
import json
import os
import sys

BUILTINS = frozenset(dir(__builtins__) if isinstance(__builtins__, type(sys)) else __builtins__)
# Methods that store into the object they are called on: calling one on an object that outlives
# the call keeps state between calls.
MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "update", "setdefault", "add", "__setitem__", "appendleft",
    "put", "copy_", "fill_", "zero_",
})
LOCAL_PREFIX = "<workspace>."


def matches(name, pattern):
    """`pattern` is a dotted name; `a.b.*` also covers a.b and everything below it, and `a.b*`
    every name that starts with a.b."""
    if pattern.endswith(".*"):
        stem = pattern[:-2]
        return name == stem or name.startswith(stem + ".")
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern


def first_match(name, patterns):
    for pattern in patterns:
        if matches(name, pattern):
            return pattern
    return None


class Module:
    def __init__(self, path, rel, tree, lines):
        self.path, self.rel, self.tree, self.lines = path, rel, tree, lines
        self.aliases = {}    # name -> dotted name it stands for
        self.strings = {}    # name -> the one constant string it is bound to
        self.jit_functions = set()  # FunctionDef nodes decorated with triton.*
        self.bound = set()   # names the module binds itself anywhere (they shadow builtins)


class Analyzer:
    def __init__(self, request):
        self.workspace = os.path.realpath(request["workspace"])
        self.rules = request["rules"]
        self.findings = []
        self.seen = set()
        self.modules = {}  # realpath -> Module
        self.has_kernel = False

    # ---- findings -------------------------------------------------------------------------
    def report(self, module, node, reason, rule, message):
        line = getattr(node, "lineno", 0)
        key = (module.rel, line, rule)
        if key in self.seen:
            return
        self.seen.add(key)
        text = module.lines[line - 1].strip() if 0 < line <= len(module.lines) else ""
        self.findings.append({
            "rule": rule, "reason_code": reason, "message": message, "file": module.rel,
            "line": line, "evidence": [text] if text else [],
        })

    # ---- loading ----------------------------------------------------------------------------
    def local_module_path(self, dotted, importer, level):
        """The workspace file that `import dotted` (relative `level`) loads, if any."""
        base = self.workspace if level == 0 else os.path.dirname(importer.path)
        for _ in range(max(level - 1, 0)):
            base = os.path.dirname(base)
        parts = dotted.split(".") if dotted else []
        stem = os.path.join(base, *parts) if parts else base
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            real = os.path.realpath(candidate)
            if os.path.isfile(real) and (real + os.sep).startswith(self.workspace + os.sep):
                return real
        return None

    def load(self, path):
        real = os.path.realpath(path)
        if real in self.modules:
            return self.modules[real]
        with open(real, "rb") as handle:
            source = handle.read()
        try:
            tree = ast.parse(source, filename=real)
        except (SyntaxError, ValueError):
            # Python cannot import it either; the worker reports that as candidate_load.
            self.modules[real] = None
            return None
        text = source.decode("utf-8", errors="replace")
        module = Module(real, os.path.relpath(real, self.workspace), tree, text.splitlines())
        self.modules[real] = module
        self.bind(module)
        return module

    # ---- name resolution ------------------------------------------------------------------
    def bind(self, module):
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                module.bound.add(node.id)
            elif isinstance(node, ast.arg):
                module.bound.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                module.bound.add(node.name)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = self.local_module_path(alias.name, module, 0)
                    target = LOCAL_PREFIX + alias.name if local else alias.name
                    if alias.asname:
                        module.aliases[alias.asname] = target
                    else:
                        head = alias.name.split(".")[0]
                        module.aliases[head] = LOCAL_PREFIX + head if local else head
            elif isinstance(node, ast.ImportFrom):
                local = self.local_module_path(node.module or "", module, node.level)
                origin = LOCAL_PREFIX + (node.module or "") if local or node.level else node.module
                for alias in node.names:
                    if alias.name != "*":
                        module.aliases[alias.asname or alias.name] = f"{origin}.{alias.name}"
        # Plain assignments of resolvable values, to a fixed point (aliases of aliases).
        changed = True
        while changed:
            changed = False
            for node in ast.walk(module.tree):
                if not isinstance(node, ast.Assign):
                    continue
                for target in node.targets:
                    if not isinstance(target, ast.Name):
                        continue
                    text = self.fold(module, node.value)
                    if isinstance(text, str) and module.strings.get(target.id) != text:
                        module.strings[target.id] = text
                        changed = True
                    name = self.qualified(module, node.value)
                    if name and module.aliases.get(target.id) != name:
                        module.aliases[target.id] = name
                        changed = True

    def fold(self, module, node):
        """The constant string `node` evaluates to, or None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            return module.strings.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.fold(module, node.left), self.fold(module, node.right)
            return left + right if left is not None and right is not None else None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                inner = value.value if isinstance(value, ast.FormattedValue) else value
                text = self.fold(module, inner)
                if text is None:
                    return None
                parts.append(text)
            return "".join(parts)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "join" and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], (ast.List, ast.Tuple))):
            separator = self.fold(module, node.func.value)
            items = [self.fold(module, item) for item in node.args[0].elts]
            if separator is not None and all(item is not None for item in items):
                return separator.join(items)
        return None

    def qualified(self, module, node):
        """The dotted name `node` stands for (a module, or something reached from one)."""
        if isinstance(node, ast.Name):
            if node.id in module.aliases:
                return module.aliases[node.id]
            builtin = node.id in BUILTINS or node.id == "__builtins__"
            return node.id if builtin and node.id not in module.bound else None
        if isinstance(node, ast.Attribute):
            base = self.qualified(module, node.value)
            return f"{base}.{node.attr}" if base else None
        if self.is_getattr(module, node) and len(node.args) >= 2:
            base = self.qualified(module, node.args[0])
            attr = self.fold(module, node.args[1])
            return f"{base}.{attr}" if base and attr is not None else None
        return None

    def is_getattr(self, module, node):
        return isinstance(node, ast.Call) and self.qualified(module, node.func) == "getattr"

    # ---- checks -----------------------------------------------------------------------------
    def analyze(self, module):
        for node in ast.walk(module.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if (self.qualified(module, target) or "").startswith("triton."):
                        module.jit_functions.add(node)
                        self.has_kernel = True
        self.visit(module, module.tree, in_jit=False, function=None)

    def visit(self, module, node, in_jit, function):
        if node in module.jit_functions:
            in_jit = True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if not in_jit:
                self.check_defaults(module, node)
            function = node
        if not in_jit:
            self.check_node(module, node, function)
        for child in ast.iter_child_nodes(node):
            child.parent = node
            self.visit(module, child, in_jit, function)

    def check_node(self, module, node, function):
        rules = self.rules
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.check_import(module, node, alias.name, 0)
        elif isinstance(node, ast.ImportFrom):
            self.check_import(module, node, node.module or "", node.level,
                              [a.name for a in node.names])
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            if not isinstance(getattr(node, "parent", None), ast.Attribute):
                self.check_reference(module, node, self.qualified(module, node))
            if isinstance(node, ast.Attribute):
                self.check_attribute(module, node, node.attr)
        elif isinstance(node, ast.Call) and self.is_getattr(module, node):
            self.check_getattr(module, node)
        elif isinstance(node, ast.Call):
            name = self.qualified(module, node.func)
            if name in ("setattr", "delattr") and node.args:
                self.check_patch(module, node, node.args[0])
                if len(node.args) > 1 and self.fold(module, node.args[1]) is None:
                    self.report(module, node, "dynamic_attribute", f"dynamic_attribute:{name}",
                                f"{name} with a name computed at run time")
            if (function is not None and rules["module_state"]
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in MUTATING_METHODS):
                self.check_state(module, node, node.func, function)
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.MatMult):
            if "@" in rules["forbidden_operators"]:
                self.report(module, node, "forbidden_operator", "forbidden_operator:@",
                            "the @ (matrix multiply) operator")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                for leaf in self.store_targets(target):
                    self.check_patch(module, node, leaf)
                    if function is not None and rules["module_state"]:
                        self.check_state(module, node, leaf, function)
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and rules["module_state"]:
            kind = "global" if isinstance(node, ast.Global) else "nonlocal"
            self.report(module, node, "module_state", f"module_state:{kind}",
                        f"'{kind} {', '.join(node.names)}' keeps state between calls")
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = self.qualified(module, base) or ""
                if matches(name, "torch.Tensor") or matches(name, "torch._C.*") or matches(
                        name, "torch.nn.Parameter"):
                    self.report(module, node, "tensor_subclass", "tensor_subclass",
                                f"class {node.name} derives from {name}")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in (
                "__torch_function__", "__torch_dispatch__"):
            self.report(module, node, "tensor_subclass", f"tensor_subclass:{node.name}",
                        f"defines {node.name}, which intercepts tensor operations")

    def store_targets(self, target):
        if isinstance(target, (ast.Tuple, ast.List)):
            for item in target.elts:
                yield from self.store_targets(item)
        elif isinstance(target, ast.Starred):
            yield from self.store_targets(target.value)
        else:
            yield target

    def check_import(self, module, node, name, level, imported=()):
        hidden = self.rules["hidden_modules"]
        full = [name] + [f"{name}.{item}" for item in imported if item != "*"]
        for dotted in full:
            if not dotted:
                continue
            head = dotted.split(".")
            for i in range(len(head)):
                if ".".join(head[i:i + 1]) in hidden or ".".join(head[:i + 1]) in hidden:
                    self.report(module, node, "reference_import", f"reference_import:{dotted}",
                                f"imports {dotted}, which the candidate must not use")
                    return
        if level or (name and self.local_module_path(name, module, 0)):
            for dotted in [name] + [f"{name}.{item}" if name else item for item in imported]:
                path = self.local_module_path(dotted, module, level)
                if path:
                    self.follow(path)
            return
        for dotted in full:
            pattern = first_match(dotted, self.rules["forbidden_modules"]) or next(
                (p for p in self.rules["forbidden_modules"] if matches(dotted, p + ".*")), None)
            if pattern:
                self.report(module, node, "forbidden_module", f"forbidden_module:{pattern}",
                            f"imports {dotted}")
                return
        if "*" in imported:
            self.report(module, node, "forbidden_module", "forbidden_module:star_import",
                        f"'from {name} import *' hides which names are used")

    def follow(self, path):
        if path not in self.modules:
            imported = self.load(path)
            if imported is not None:
                self.analyze(imported)

    def check_reference(self, module, node, name):
        if not name or name.startswith(LOCAL_PREFIX):
            return
        if name.startswith("builtins."):
            name = name[len("builtins."):]
        pattern = first_match(name, self.rules["forbidden_calls"])
        if pattern:
            self.report(module, node, "forbidden_call", f"forbidden_call:{pattern}", f"uses {name}")
            return
        if name in ("operator.matmul", "operator.imatmul") and "@" in self.rules[
                "forbidden_operators"]:
            self.report(module, node, "forbidden_operator", "forbidden_operator:@", f"uses {name}")
            return
        head = name.split(".")[0]
        pattern = next((p for p in self.rules["forbidden_modules"] if matches(name, p + ".*")),
                       None)
        if pattern and head != name:
            self.report(module, node, "forbidden_module", f"forbidden_module:{pattern}",
                        f"uses {name}")
            return
        if (self.rules["custom_kernels_required"] and matches(name, "torch.*") and name != "torch"
                and not first_match(name, self.rules["torch_glue"])):
            self.report(module, node, "torch_compute", f"torch_compute:{name}",
                        f"uses {name}, which is not allowed glue where custom kernels are required")

    def check_attribute(self, module, node, attr):
        if attr in self.rules["forbidden_attributes"]:
            self.report(module, node, "forbidden_attribute", f"forbidden_attribute:{attr}",
                        f"uses the attribute .{attr}")
        elif attr in ("__matmul__", "__rmatmul__", "__imatmul__") and "@" in self.rules[
                "forbidden_operators"]:
            self.report(module, node, "forbidden_operator", "forbidden_operator:@",
                        f"uses .{attr}")
        elif (self.rules["custom_kernels_required"] and attr in self.rules["compute_methods"]
              and isinstance(getattr(node, "parent", None), ast.Call)
              and node.parent.func is node
              and self.qualified(module, node.value) is None):  # a tensor, not a module
            self.report(module, node, "torch_compute", f"torch_compute:.{attr}",
                        f"calls .{attr}(), a tensor operation, where custom kernels are required")

    def check_getattr(self, module, node):
        if len(node.args) < 2:
            return
        attr = self.fold(module, node.args[1])
        if attr is None:
            self.report(module, node, "dynamic_attribute", "dynamic_attribute:getattr",
                        "getattr with a name computed at run time")
            return
        self.check_attribute(module, node, attr)
        self.check_reference(module, node, self.qualified(module, node))

    def check_patch(self, module, node, target):
        """Assigning into another module, or into a class or function it defines."""
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if root is target and not isinstance(node, ast.Call):
            return
        name = self.qualified(module, root) if isinstance(root, ast.Name) else None
        if isinstance(root, ast.Name) and name and not name.startswith(LOCAL_PREFIX):
            shown = ast.unparse(target) if hasattr(ast, "unparse") else name
            self.report(module, node, "monkey_patch", f"monkey_patch:{name}",
                        f"changes {shown}, which belongs to {name}")

    def locals_of(self, function):
        names = set()
        args = function.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            names.add(arg.arg)
        for arg in (args.vararg, args.kwarg):
            if arg:
                names.add(arg.arg)
        body = function.body if isinstance(function.body, list) else [function.body]
        stack = list(body)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
                continue
            elif isinstance(node, ast.Lambda):
                continue
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            stack.extend(ast.iter_child_nodes(node))
        return names

    def check_state(self, module, node, target, function):
        """A store into, or a mutating call on, an object that outlives the call."""
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        if root is target or not isinstance(root, ast.Name):
            return
        if root.id in self.locals_of(function) or root.id in module.aliases:
            return
        self.report(module, node, "module_state", f"module_state:{root.id}",
                    f"stores into {root.id}, which lives longer than one call")

    def check_defaults(self, module, function):
        if not self.rules["module_state"]:
            return
        defaults = function.args.defaults + [d for d in function.args.kw_defaults if d]
        for default in defaults:
            mutable = isinstance(default, (ast.Dict, ast.List, ast.Set)) or (
                isinstance(default, ast.Call)
                and self.qualified(module, default.func) in ("dict", "list", "set"))
            if mutable:
                self.report(module, default, "module_state", "module_state:mutable_default",
                            "a mutable default argument keeps state between calls")


def main():
    request = json.loads(sys.argv[1])
    analyzer = Analyzer(request)
    entry = analyzer.load(request["entry"])
    if entry is not None:
        analyzer.analyze(entry)
        if analyzer.rules["custom_kernels_required"] and not analyzer.has_kernel:
            analyzer.findings.append({
                "rule": "custom_kernels_required", "reason_code": "no_custom_kernel",
                "message": "no function decorated with triton.jit (or another triton decorator)"
                           " in the candidate or the modules it imports from its folder",
                "file": entry.rel, "line": 0, "evidence": [],
            })
    json.dump({"findings": analyzer.findings}, sys.stdout)


if __name__ == "__main__":
    main()
