// Fields a JSON document gives twice, by the path sigs.k8s.io/json's strict decoder names them in
// its `duplicate field "<path>"` errors (`spec.template.metadata.labels.app`, `spec.ports[0].port`).
// JSON.parse keeps the last value silently; kube-apiserver reports the duplicate (a Warning, or a
// 400 under fieldValidation=Strict). The text must already have parsed as JSON.

export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const readString = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = readString();
        if (seen.has(key)) found.push(child(path, key));
        seen.add(key);
        ws();
        i++; // ':'
        value(child(path, key));
        ws();
        if (text[i++] === '}') return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] === ']') return;
      }
    }
    if (c === '"') {
      readString();
      return;
    }
    while (i < text.length && !',]} \t\n\r'.includes(text[i]!)) i++;
  };
  value('');
  return [...new Set(found)];
}
