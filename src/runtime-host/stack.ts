import { SourceMap } from 'node:module';
import { BUNDLE_FILENAME } from '../../runtime/guest.js';

const FRAME_LOCATION = new RegExp(`${BUNDLE_FILENAME.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:(\\d+):(\\d+)`);

/**
 * The guest's stack as the app author should read it: only frames of the app's bundle (our bootstrap's
 * frames say nothing to them), each mapped to the original file and line when a source map is given.
 */
export function appStack(stack: string, sourceMap: SourceMap | undefined): string {
  const lines = stack.split('\n');
  const firstFrame = lines.findIndex((line) => /^\s+at /.test(line));
  const head = firstFrame === -1 ? lines : lines.slice(0, firstFrame);
  const frames = firstFrame === -1 ? [] : lines.slice(firstFrame).filter((line) => FRAME_LOCATION.test(line));
  return [
    ...head,
    ...frames.map((line) =>
      line.replace(FRAME_LOCATION, (whole, line, column) => {
        const origin = sourceMap?.findOrigin(Number(line), Number(column));
        return origin && 'fileName' in origin ? `${origin.fileName}:${origin.lineNumber}:${origin.columnNumber}` : whole;
      }),
    ),
  ].join('\n');
}

export function parseSourceMap(json: string): SourceMap | undefined {
  try {
    return new SourceMap(JSON.parse(json));
  } catch {
    return undefined;
  }
}
