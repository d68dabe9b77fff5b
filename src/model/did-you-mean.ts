/**
 * "Did you mean …?" for names: the closest candidate by optimal-string-alignment distance (Damerau-
 * Levenshtein with adjacent transpositions), accepted only when close enough to be a plausible typo.
 */
export function closestName(actual: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(actual.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === actual) continue;
    const distance = candidate.toLowerCase() === actual.toLowerCase() ? 0.5 : editDistance(actual, candidate, limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** The hint text used by every finding that suggests a name. */
export function didYouMean(actual: string, candidates: Iterable<string>): string | undefined {
  const name = closestName(actual, candidates);
  return name === undefined ? undefined : `did you mean '${name}'?`;
}

/** Optimal string alignment distance; stops early (returns limit + 1) once it cannot be within `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (previous2[j - 2] ?? 0) + 1);
      row.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous2 = previous;
    previous = row;
  }
  return previous[b.length] ?? 0;
}
