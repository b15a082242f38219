import { existsSync, lstatSync, readFileSync, realpathSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { LIMITS } from './bundle.js';
import { SOURCE_LIMITS } from './source.js';
import { BuildFailure } from './build-failure.js';

function within(parent: string, path: string): boolean {
  const rel = relative(parent, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * The project's `public` folder, published as is: a relative path inside the project (the config schema
 * already refuses `..` and absolute paths) that really lies inside it, walked without following links — a
 * symlink in it is left out with a log line — and every file's real path checked to lie inside the project.
 * Capped by file count and size before anything is read.
 */
export function publicFiles(dir: string, folder: string, log: (line: string) => void): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const root = realpathSync(dir);
  const outside = (path: string) => !within(root, realpathSync(path));
  if (!existsSync(join(dir, folder))) return files;
  // An installed package's folder is reached through pnpm's link, which stays inside the project.
  if (outside(join(dir, folder))) throw new BuildFailure('BUILD', 'BUILD_FAILED', `public 폴더 ${folder}가 프로젝트 밖을 가리킵니다`);
  const top = realpathSync(join(dir, folder));
  // out/ holds the bundler's output, the server bundle among it: never published as static files.
  if (within(join(root, 'out'), top)) throw new BuildFailure('BUILD', 'BUILD_FAILED', `public 폴더 ${folder}는 빌드 출력 폴더(out/)라 쓸 수 없습니다`);
  if (!lstatSync(top).isDirectory()) throw new BuildFailure('BUILD', 'BUILD_FAILED', `public 폴더 ${folder}가 폴더가 아닙니다`);
  let bytes = 0;
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const rel = relative(top, path).split('\\').join('/');
      if (entry.isSymbolicLink()) {
        log(`${folder}/${rel}: 링크는 게시하지 않습니다`);
        continue;
      }
      if (entry.isDirectory()) {
        walk(path);
        continue;
      }
      if (!entry.isFile()) continue;
      if (outside(path)) throw new BuildFailure('BUILD', 'BUILD_FAILED', `${folder}/${rel}가 프로젝트 밖을 가리킵니다`);
      const { size } = lstatSync(path);
      if (size > LIMITS.staticFile) throw new BuildFailure('BUILD', 'ARTIFACT_TOO_LARGE', `${rel}가 25 MiB를 넘습니다`);
      bytes += size;
      if (bytes > LIMITS.staticTotal) throw new BuildFailure('BUILD', 'ARTIFACT_TOO_LARGE', `정적 파일이 모두 100 MiB를 넘습니다`);
      if (files.size >= SOURCE_LIMITS.files) throw new BuildFailure('BUILD', 'ARTIFACT_TOO_LARGE', `public 폴더의 파일이 ${SOURCE_LIMITS.files}개를 넘습니다`);
      files.set(rel, readFileSync(path));
    }
  };
  walk(top);
  return files;
}
