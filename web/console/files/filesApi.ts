import type {
  FilesClosed, FilesCreated, FilesFolder, FilesOpened, FilesRenamed, FilesRoots, FilesSaved,
} from '../../../adapters/http/consoleFilesApi.js'
import { consoleRequest } from '../request.js'

/** The editor's file calls (contract in adapters/http/consoleFilesApi.ts), as the person (the session cookie). */
export class FilesApi {
  roots(): Promise<FilesRoots> {
    return consoleRequest('GET', '/console/api/files/roots')
  }

  list(path: string): Promise<FilesFolder> {
    return consoleRequest('GET', `/console/api/files/list?path=${encodeURIComponent(path)}`)
  }

  open(path: string, window: string): Promise<FilesOpened> {
    return consoleRequest('POST', '/console/api/files/open', { path, window })
  }

  create(path: string, type: 'file' | 'directory', window: string): Promise<FilesCreated> {
    return consoleRequest('POST', '/console/api/files/create', { path, type, window })
  }

  rename(from: string, to: string): Promise<FilesRenamed> {
    return consoleRequest('POST', '/console/api/files/rename', { from, to })
  }

  newTab(window: string): Promise<FilesOpened> {
    return consoleRequest('POST', '/console/api/tabs/new', { window })
  }

  /** `stateVector`: what the person's editor holds now, which the save waits for (see consoleFilesApi.ts). */
  save(tabId: string, stateVector: string | null): Promise<FilesSaved> {
    return consoleRequest('POST', `/console/api/tabs/${encodeURIComponent(tabId)}/save`, stateVector === null ? {} : { stateVector })
  }

  saveAs(tabId: string, path: string, stateVector: string | null): Promise<FilesSaved> {
    return consoleRequest('POST', `/console/api/tabs/${encodeURIComponent(tabId)}/save-as`, { path, ...(stateVector === null ? {} : { stateVector }) })
  }

  close(tabId: string, force: boolean): Promise<FilesClosed> {
    return consoleRequest('POST', `/console/api/tabs/${encodeURIComponent(tabId)}/close`, { force })
  }
}
